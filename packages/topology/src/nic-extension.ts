/**
 * The `nic:` keys (DESIGN §5, §9), contributed by @rocelab/rnic: its schema under
 * `defaults.nic` and each host, and the checks that need the resolved pod — each host's
 * settings on top of its profile, sized for the link to its ToR.
 */
import { nicConfigSchema, resolveNicSettings, type NicProblem, type NicSettings } from '@rocelab/rnic';
import type { ExtensionProblem, SchemaExtensions } from './extensions.js';
import type { NodeSpec, PodSpec } from './pod.js';
import { UNITS } from './units.js';
import { switchSettingsOf } from './switch-extension.js';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';

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
    const settings = nicSettingsOf(pod, node, problems);
    if (problems.length === 0 && settings.recovery === 'selectiveRepeat') problems.push(...checkSelectiveRepeat(pod, node, settings));
    // A credit link has no PAUSE to ignore: an ACK sent without credit would overrun the peer's lane buffer.
    if (settings.ackIgnoresPause && node.ports[0]!.out.credit !== undefined) {
      problems.push({ field: 'ackIgnoresPause', expected: `false on ${node.name}, whose link is in credit flow control (ACKs wait for credit as every frame does; the setting ignores PFC pauses only)`, actual: true });
    }
    for (const p of problems) out.push({ node: node.name, key: 'nic', ...p });
  }
  return out;
}

/**
 * Selective repeat exists to run without PFC (IRN): on a priority the NIC or its ToR keeps
 * lossless it is refused unless the file says so (`onLossless`). It carries the built-in WRITE
 * and SEND flows: a READ flow or an app on the host needs go-back.
 */
function checkSelectiveRepeat(pod: PodSpec, node: NodeSpec, s: NicSettings): NicProblem[] {
  const priority = DEFAULT_DSCP_MAP[s.dataDscp]!;
  const tor = pod.nodes[node.ports[0]!.peerNode]!;
  const keepers = [...(s.pfc.lossless.includes(priority) ? ['this NIC'] : []), ...(tor.role !== 'host' && switchSettingsOf(pod, tor).losslessPriorities.includes(priority) ? [tor.name] : [])];
  const problems: NicProblem[] = [];
  if (keepers.length > 0 && !s.selectiveRepeat.onLossless) {
    problems.push({
      field: 'recovery',
      expected: `selective repeat on a lossy priority: the data (DSCP ${s.dataDscp}) rides priority ${priority}, which ${keepers.join(' and ')} keep lossless with PFC; make it lossy (losslessPriorities), or say selectiveRepeat: {onLossless: true}`,
      actual: 'selectiveRepeat',
    });
  }
  const readFlow = pod.workloads.find((w) => w.kind === 'flow' && w.raw.opcode === 'read' && [w.raw.from].flat().includes(node.name));
  if (readFlow !== undefined) problems.push({ field: 'recovery', expected: `goBackN or goBack0 on a host that posts READs (workloads[${readFlow.index}]): selective repeat carries WRITEs and SENDs`, actual: 'selectiveRepeat' });
  if (node.config.app !== undefined) problems.push({ field: 'recovery', expected: 'goBackN or goBack0 on a host that runs an app: selective repeat carries the built-in WRITE and SEND flows', actual: 'selectiveRepeat' });
  return problems;
}

export const NIC_EXTENSION: SchemaExtensions = {
  defaults: { nic: nicConfigSchema },
  node: { nic: nicConfigSchema },
  checks: [checkNics],
};
