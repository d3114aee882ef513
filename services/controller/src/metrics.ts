/**
 * The controller's own metrics (role `controller`): emulator health of DESIGN §6. Its
 * `rocelab_virtual_seconds_total` is the clock dashboards divide by to get per-virtual-second rates.
 */
import { readCounter, readGauge } from '@rocelab/telemetry';
import { Registry } from 'prom-client';
import type { FaultView } from '@rocelab/runtime';
import type { Status } from '@rocelab/wire';

/**
 * `paceSource`: where the dilation comes from — fixed when the pod started, or being measured
 * (unpaced meanwhile) and then chosen by the pod itself (`auto-pace.ts` of `@rocelab/sync`).
 */
export function controllerRegistry(status: () => Status, faults: () => readonly FaultView[] = () => [], paceSource: () => 'fixed' | 'measuring' | 'chosen' = () => 'fixed'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ node: 'controller', role: 'controller' });
  readCounter(registry, 'rocelab_virtual_seconds_total', 'Virtual seconds the pod has been granted.', [], (emit) => emit({}, status().virtualPs / 1e12));
  readCounter(registry, 'rocelab_sync_windows_total', 'Synchronization windows granted.', [], (emit) => emit({}, status().windows));
  readGauge(registry, 'rocelab_dilation_ratio', 'Wall seconds per virtual second the controller paces at (0 = as fast as possible).', [], (emit) => emit({}, status().dilation));
  // The same value as rocelab_dilation_ratio, which dashboards already read, with where it comes from.
  readGauge(registry, 'rocelab_pace_wall_seconds_per_virtual_second', 'Wall seconds per virtual second the pod keeps, by source: fixed when it started, measuring (unpaced, 0) or chosen from its first windows.', ['source'], (emit) => emit({ source: paceSource() }, status().dilation));
  readGauge(registry, 'rocelab_sync_lag_seconds', 'Wall seconds the pod is behind its paced schedule.', [], (emit) => emit({}, status().lagSeconds));
  readGauge(registry, 'rocelab_pod_nodes_up', 'Nodes whose member is connected.', [], (emit) => emit({}, status().nodesUp));
  readGauge(registry, 'rocelab_pod_nodes', 'Nodes in the pod.', [], (emit) => emit({}, status().nodesTotal));
  readGauge(registry, 'rocelab_node_up', 'The controller is running (1).', [], (emit) => emit({}, 1));
  // One series per fault kind and target ever injected (a run has few): dashboard annotations.
  readGauge(registry, 'rocelab_fault_active', 'A fault applies now (1) or not (0), by kind and target (`fault` = kind).', ['fault', 'target'], (emit) => {
    const active = new Map<string, { fault: string; target: string; on: number }>();
    for (const f of faults()) {
      const key = `${f.kind}\u0000${f.target}`;
      const on = f.state === 'active' ? 1 : 0;
      active.set(key, { fault: f.kind, target: f.target, on: Math.max(on, active.get(key)?.on ?? 0) });
    }
    for (const { fault, target, on } of active.values()) emit({ fault, target }, on);
  });
  return registry;
}
