/**
 * The `nic:` keys (DESIGN §5, §9), contributed by @rocelab/rnic: its schema under
 * `defaults.nic` and each host, and the checks that need the resolved pod — each host's
 * settings on top of its profile, sized for the link to its ToR.
 */
import { nicConfigSchema, resolveNicSettings, type NicProblem, type NicSettings } from '@rocelab/rnic';
import type { ExtensionProblem, SchemaExtensions } from './extensions.js';
import type { NodeSpec, PodSpec } from './pod.js';
import { UNITS } from './units.js';

type Raw = Record<string, unknown> | undefined;

/** The resolved settings of one host: profile, then `defaults.nic`, then the host's `nic:`. */
export function nicSettingsOf(pod: PodSpec, node: NodeSpec, problems: NicProblem[] = []): NicSettings {
  const port = node.ports[0];
  if (port === undefined) throw new Error(`host ${node.name} has no port`);
  return resolveNicSettings(pod.profile, pod.timing, port, [pod.defaults.nic as Raw, node.config.nic as Raw], UNITS, problems);
}

function checkNics(pod: PodSpec): ExtensionProblem[] {
  const out: ExtensionProblem[] = [];
  for (const node of pod.nodes) {
    if (node.role !== 'host' || node.ports.length === 0) continue;
    const problems: NicProblem[] = [];
    nicSettingsOf(pod, node, problems);
    for (const p of problems) out.push({ node: node.name, key: 'nic', ...p });
  }
  return out;
}

export const NIC_EXTENSION: SchemaExtensions = {
  defaults: { nic: nicConfigSchema },
  node: { nic: nicConfigSchema },
  checks: [checkNics],
};
