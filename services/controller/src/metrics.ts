/**
 * The controller's own metrics (role `controller`): emulator health of DESIGN §6. Its
 * `rocelab_virtual_seconds_total` is the clock dashboards divide by to get per-virtual-second rates.
 */
import { readCounter, readGauge } from '@rocelab/telemetry';
import { Registry } from 'prom-client';
import type { Status } from '@rocelab/wire';

export function controllerRegistry(status: () => Status): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ node: 'controller', role: 'controller' });
  readCounter(registry, 'rocelab_virtual_seconds_total', 'Virtual seconds the pod has been granted.', [], (emit) => emit({}, status().virtualPs / 1e12));
  readCounter(registry, 'rocelab_sync_windows_total', 'Synchronization windows granted.', [], (emit) => emit({}, status().windows));
  readGauge(registry, 'rocelab_dilation_ratio', 'Wall seconds per virtual second the controller paces at (0 = as fast as possible).', [], (emit) => emit({}, status().dilation));
  readGauge(registry, 'rocelab_sync_lag_seconds', 'Wall seconds the pod is behind its paced schedule.', [], (emit) => emit({}, status().lagSeconds));
  readGauge(registry, 'rocelab_pod_nodes_up', 'Nodes whose member is connected.', [], (emit) => emit({}, status().nodesUp));
  readGauge(registry, 'rocelab_pod_nodes', 'Nodes in the pod.', [], (emit) => emit({}, status().nodesTotal));
  readGauge(registry, 'rocelab_node_up', 'The controller is running (1).', [], (emit) => emit({}, 1));
  return registry;
}
