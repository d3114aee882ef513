/**
 * The `switch:` keys (DESIGN §5, §9), contributed by @rocelab/switch: its schema under
 * `defaults.switch` and each switch node, and the checks that need the resolved pod — every
 * switch's settings on top of its profile, and its buffer plan against its own ports.
 */
import { planSwitch, portDirections, resolveSwitchSettings, switchConfigSchema, type PortDirection, type SwitchProblem, type SwitchSettings } from '@rocelab/switch';
import type { ExtensionProblem, SchemaExtensions } from './extensions.js';
import type { NodeSpec, PodSpec } from './pod.js';
import { UNITS } from './units.js';
import { DEFAULT_DSCP_MAP } from '@rocelab/wire';

type Raw = Record<string, unknown> | undefined;

/** The resolved settings of one switch: profile, then `defaults.switch`, then the node's `switch:`. */
export function switchSettingsOf(pod: PodSpec, node: NodeSpec, problems: SwitchProblem[] = []): SwitchSettings {
  const rate = Math.max(...node.ports.map((p) => p.out.rateBps), 0) || 40e9;
  const settings = resolveSwitchSettings(pod.profile, pod.timing, rate, [pod.defaults.switch as Raw, node.config.switch as Raw], UNITS, problems);
  return settings;
}

/**
 * Which way each port of a switch faces in the Clos, from its peers' roles (Tagger's up-down
 * paths); a problem when the switch or a peer has no tier (`switch`) or two of a tier are linked.
 */
export function switchPortDirections(pod: PodSpec, node: NodeSpec, problems: SwitchProblem[] = []): PortDirection[] | undefined {
  try {
    return portDirections(node.role, node.ports.map((p) => pod.nodes[p.peerNode]!.role));
  } catch (err) {
    const peers = node.ports.map((p) => `${p.name} → ${pod.nodes[p.peerNode]!.role}`).join(', ');
    problems.push({ field: 'tagger', expected: `a switch of a Clos: role tor, leaf or spine, linked only to hosts and other tiers (${(err as Error).message})`, actual: `${node.role} with ${peers}` });
    return undefined;
  }
}

/**
 * On a credit link a frame's lane is its priority, which each end reads from the DSCP with its own
 * map: the two maps must agree or the ends would count the frame on different lanes (a host's NIC
 * uses the default map, 26 → 3 and 48 → 6).
 */
function checkCreditLanes(pod: PodSpec, node: NodeSpec, settings: SwitchSettings, problems: SwitchProblem[]): void {
  for (const port of node.ports) {
    if (port.out.credit === undefined) continue;
    const peer = pod.nodes[port.peerNode]!;
    // A switch pair is checked once, from the end whose name sorts first.
    if (peer.role !== 'host' && peer.name < node.name) continue;
    const theirs = peer.role === 'host' ? DEFAULT_DSCP_MAP : switchSettingsOf(pod, peer).dscpMap;
    const dscp = settings.dscpMap.findIndex((p, d) => p !== theirs[d]);
    if (dscp < 0) continue;
    problems.push({
      field: 'dscpMap',
      expected: `the DSCP → priority map of ${peer.name} at the other end of credit link ${port.name} (a frame's lane is its priority at both ends${peer.role === 'host' ? '; a NIC maps 26 → 3, 48 → 6, the rest → 0' : ''})`,
      actual: `DSCP ${dscp} → ${settings.dscpMap[dscp]} here, → ${theirs[dscp]} at ${peer.name}`,
    });
  }
}

function checkSwitches(pod: PodSpec): ExtensionProblem[] {
  const out: ExtensionProblem[] = [];
  for (const node of pod.nodes) {
    if (node.role === 'host') continue;
    const problems: SwitchProblem[] = [];
    const settings = switchSettingsOf(pod, node, problems);
    if (problems.length === 0) planSwitch(settings, node.ports, problems);
    if (settings.tagger !== null) switchPortDirections(pod, node, problems);
    checkCreditLanes(pod, node, settings, problems);
    for (const p of problems) out.push({ node: node.name, key: 'switch', ...p });
  }
  return out;
}

export const SWITCH_EXTENSION: SchemaExtensions = {
  defaults: { switch: switchConfigSchema },
  node: { switch: switchConfigSchema },
  checks: [checkSwitches],
};
