/**
 * Links: endpoint checks, per-direction parameters with defaults applied, and the directions
 * in base units. A link's file-level defaults come from `defaults.link` (itself defaulted to
 * 40G / 1us / 1024, DESIGN §8); `defaults.link.impairments` applies to every direction.
 */
import type { Problems } from './errors.js';
import type { NodeTable } from './nodes.js';
import type { Endpoint, Impairments, LinkDirection, LinkSpec } from './pod.js';
import { LINK_DEFAULTS, type RawImpair, type RawLink, type RawTopology } from './schema.js';
import { parseBytes, parseDuration, parseProbability, parseRate } from './units.js';
import { CREDIT_BLOCK_BYTES, MAX_CREDIT_BUFFER_BLOCKS, creditBlocks, defaultCreditBufferBlocks } from '@rocelab/sim';
import { maxFrameBytes } from '@rocelab/wire';

export const NO_IMPAIRMENTS: Readonly<Impairments> = Object.freeze({ down: false, loss: 0, dropIpIdLowByte: null, corrupt: 0, packetEvents: Object.freeze([]) });

function impairments(base: Impairments, raw: RawImpair | undefined, path: string, problems: Problems): Impairments {
  if (!raw) return { ...base };
  return {
    down: raw.down ?? base.down,
    loss: raw.loss === undefined ? base.loss : problems.parse(`${path}.loss`, 0, () => parseProbability(raw.loss!)),
    dropIpIdLowByte: raw.dropIpIdLowByte ?? base.dropIpIdLowByte,
    corrupt: raw.corrupt === undefined ? base.corrupt : problems.parse(`${path}.corrupt`, 0, () => parseProbability(raw.corrupt!)),
    packetEvents: base.packetEvents,
  };
}

/** The link defaults in base units (direction-agnostic). */
function linkDefaults(raw: RawTopology, problems: Problems): LinkDirection {
  const d = raw.defaults?.link ?? {};
  const path = 'defaults.link';
  return {
    rateBps: problems.parse(`${path}.rate`, 0, () => parseRate(d.rate ?? LINK_DEFAULTS.rate)),
    latencyPs: problems.parse(`${path}.latency`, 0, () => parseDuration(d.latency ?? LINK_DEFAULTS.latency)),
    mtu: d.mtu ?? LINK_DEFAULTS.mtu,
    impairments: impairments(NO_IMPAIRMENTS, d.impairments, `${path}.impairments`, problems),
  };
}

/**
 * A link's credit flow control (issue 14), or null for PFC. Both ends must agree: a credit sender
 * waits for credit a PFC port never grants, and a PFC port's pauses would go unheard. The lane
 * buffer is the same at both ends; it must take the largest frame and fit IBA's 12-bit counters.
 */
function creditOf(raw: RawTopology, link: RawLink, path: string, latencyPs: number, dir: LinkDirection, problems: Problems): { bufferBlocks: number } | null {
  const given = link.flowControl ?? raw.defaults?.link?.flowControl ?? 'pfc';
  const fallback = raw.defaults?.link?.flowControl ?? 'pfc';
  const ends = typeof given === 'string' ? { a: given, b: given } : { a: given.a ?? fallback, b: given.b ?? fallback };
  if (ends.a !== ends.b) {
    problems.add('value', `${path}.flowControl`, 'the same flow control at both ends (a credit sender waits for credit a PFC port never grants, and a PFC port\'s pauses go unheard)', `${ends.a} at a (${link.a}), ${ends.b} at b (${link.b})`);
    return null;
  }
  const bufferRaw = link.creditBuffer ?? raw.defaults?.link?.creditBuffer;
  if (ends.a !== 'credit') return null;
  const largest = maxFrameBytes(dir.mtu);
  if (bufferRaw === undefined) return { bufferBlocks: defaultCreditBufferBlocks(dir.rateBps, latencyPs, largest) };
  const where = link.creditBuffer !== undefined ? `${path}.creditBuffer` : 'defaults.link.creditBuffer';
  const bytes = problems.parse(where, 0, () => parseBytes(bufferRaw));
  const blocks = creditBlocks(bytes);
  const min = creditBlocks(largest) * CREDIT_BLOCK_BYTES;
  const max = MAX_CREDIT_BUFFER_BLOCKS * CREDIT_BLOCK_BYTES;
  if (bytes > 0 && (bytes < min || blocks > MAX_CREDIT_BUFFER_BLOCKS)) {
    problems.add('value', where, `a lane buffer of ${min}..${max} B: at least the largest frame (${largest} B, in 64-byte blocks) and at most 2048 blocks (IBA's 12-bit credit counters)`, String(bytes));
    return null;
  }
  return bytes > 0 ? { bufferBlocks: blocks } : null;
}

/** Splits `node:port` (the schema guarantees the shape) and checks the node exists. */
function endpointOf(text: string, path: string, table: NodeTable, problems: Problems): Endpoint | null {
  const colon = text.indexOf(':');
  const ep = { node: text.slice(0, colon), port: text.slice(colon + 1) };
  if (table.byName.has(ep.node)) return ep;
  problems.add('reference', path, 'an endpoint node:port on a declared node', `${JSON.stringify(text)} (no node named ${ep.node})`);
  return null;
}

/**
 * The file's links in file order (`LinkSpec.index` = position in `links`). A link with a bad
 * endpoint is reported and left out, so the remaining checks still run.
 */
export function resolveLinks(raw: RawTopology, table: NodeTable, problems: Problems): LinkSpec[] {
  const defaults = linkDefaults(raw, problems);
  const usedBy = new Map<string, string>();
  const links: LinkSpec[] = [];
  (raw.links ?? []).forEach((link: RawLink, index) => {
    const path = `links[${index}]`;
    const a = endpointOf(link.a, `${path}.a`, table, problems);
    const b = endpointOf(link.b, `${path}.b`, table, problems);
    let ok = a !== null && b !== null;
    if (a && b && a.node === b.node) {
      problems.add('wiring', `${path}.b`, `an endpoint on a node other than a's (${a.node})`, JSON.stringify(link.b));
      ok = false;
    }
    for (const [side, ep, text] of [['a', a, link.a], ['b', b, link.b]] as const) {
      if (!ep) continue;
      const other = usedBy.get(text);
      if (other === undefined) usedBy.set(text, `${path}.${side}`);
      else {
        problems.add('wiring', `${path}.${side}`, 'a port no other link uses', `${JSON.stringify(text)} (also ${other})`);
        ok = false;
      }
    }
    const rateBps = link.rate === undefined ? defaults.rateBps : problems.parse(`${path}.rate`, 0, () => parseRate(link.rate!));
    const latencyPs = link.latency === undefined ? defaults.latencyPs : problems.parse(`${path}.latency`, 0, () => parseDuration(link.latency!));
    // A frame also spends its sender's pipeline latency before it is on the wire (NodeSpec.pipelinePs).
    const direction = (key: 'a_to_b' | 'b_to_a', sender: Endpoint | null): LinkDirection => ({
      rateBps,
      latencyPs: latencyPs + (sender === null ? 0 : table.byName.get(sender.node)!.pipelinePs),
      mtu: link.mtu ?? defaults.mtu,
      impairments: impairments(defaults.impairments, link.impairments?.[key], `${path}.impairments.${key}`, problems),
    });
    const aToB = direction('a_to_b', a);
    const bToA = direction('b_to_a', b);
    const credit = creditOf(raw, link, path, Math.max(aToB.latencyPs, bToA.latencyPs), aToB, problems);
    if (credit !== null) {
      aToB.credit = credit;
      bToA.credit = credit;
    }
    if (ok) links.push({ index, a: a!, b: b!, aToB, bToA });
  });
  return links;
}
