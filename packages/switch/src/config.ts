/**
 * The `switch:` keys of the topology file (pod-wide under `defaults.switch`, per switch under a
 * node's `switch:`): their JSON Schema, and their resolution on top of the profile into
 * `SwitchSettings`, with every bad value reported as a problem naming the field and its
 * valid range (the topology loader adds file and path).
 *
 * ```yaml
 * defaults:
 *   switch: {bufferBytes: 1MiB, ecn: {kmin: 50KB, kmax: 200KB, pmax: 0.1, priorities: [3]}, watchdog: {enabled: false}}
 * nodes:
 *   - {name: tor1, role: tor, switch: {losslessFlood: drop, xoffBytes: 200KB, xonBytes: 190KB, ecmpSeed: 7}}
 *   - {name: spine1, role: spine, switch: {ecn: {enabled: false}}}
 *   - {name: tor2, role: tor, switch: {ecn: {byRate: [{rate: 25G, kmin: 100KB, kmax: 400KB, pmax: 0.2}]}, alphaByRate: [{rate: 50G, alpha: 0.25}]}}
 *   - {name: leaf1, role: leaf, switch: {losslessPriorities: [3, 4], dscpMap: {34: 4}, tagger: {lossless: [3, 4], beyond: {lossy: 0}}}}
 * ```
 */
import { PFC_MAX_QUANTA, PFC_PRIORITIES, type DscpMap } from '@rocelab/wire';
import { formatDuration, readField, type FieldProblem, type Profile, type Timing, type UnitParsers } from '@rocelab/sim';
import { TAGGER_BEYOND_LOSSY_PRIORITY } from './defaults.js';
import { profileSettings, type BufferPool, type SwitchSettings } from './profiles.js';
import type { WatchdogAction } from './pfc-watchdog.js';

const BYTES = { type: ['integer', 'string'], description: 'a size in bytes: an integer or a string like 64KB or 1MiB' } as const;
const DURATION = { type: 'string', description: 'a duration like 200ms, 1ms or 500us' } as const;
const RATE = { type: ['string', 'number'], description: 'a link rate like 25G or 100G' } as const;
const PRIORITY_LIST = { type: 'array', items: { type: 'integer' }, description: 'a list of priorities 0..7' } as const;
/** HPCC's `m_ecmpSeed` is a uint32_t; rocelab's hash takes the same range. */
const ECMP_SEED = 'an ECMP hash seed: an integer in 0..4294967295';

/** One `switch:` object; every key optional (the profile fills the rest). */
export const switchConfigSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'switch settings',
  properties: {
    bufferBytes: BYTES,
    alpha: { type: 'number', description: 'a dynamic-threshold factor α > 0, e.g. 0.125' },
    alphaByRate: {
      type: 'array',
      description: 'the α of each ingress port by its link rate [{rate, alpha}] (HPCC ns-3 pfc_a_shift); other ports take alpha',
      items: {
        type: 'object',
        additionalProperties: false,
        description: 'an ingress port rate and its α {rate, alpha}',
        properties: { rate: RATE, alpha: { type: 'number', description: 'a dynamic-threshold factor α > 0' } },
        required: ['rate', 'alpha'],
      },
    },
    reserveBytes: BYTES,
    cableMeters: { type: 'number', description: 'a cable length in metres ≥ 0' },
    headroomBytes: BYTES,
    losslessPriorities: PRIORITY_LIST,
    dscpMap: { type: 'object', description: 'a map from DSCP (0..63) to priority (0..7), e.g. {26: 3}', additionalProperties: { type: 'integer' } },
    xoffBytes: BYTES,
    xonBytes: BYTES,
    xonOffsetBytes: BYTES,
    pools: {
      type: 'array',
      description: 'buffer pools [{name, priorities, size, alpha?}] that together cover every priority 0..7 once',
      items: {
        type: 'object',
        additionalProperties: false,
        description: 'a buffer pool {name, priorities, size, alpha?}',
        properties: { name: { type: 'string', description: 'a pool name' }, priorities: PRIORITY_LIST, size: BYTES, alpha: { type: 'number', description: 'a dynamic-threshold factor α > 0' } },
        required: ['name', 'priorities', 'size'],
      },
    },
    pauseQuanta: { type: 'integer', description: 'pause quanta 1..65535' },
    pauseRefresh: { type: 'string', description: 'half, none, or a duration like 100us' },
    ecn: {
      type: 'object',
      additionalProperties: false,
      description: 'ECN marking {enabled, priorities, kmin, kmax, pmax, markNonEct}',
      properties: {
        enabled: { type: 'boolean', description: 'true or false (false: no packet is ever marked)' },
        priorities: { ...PRIORITY_LIST, description: 'the egress queues that mark: a list of priorities 0..7' },
        kmin: BYTES,
        kmax: BYTES,
        pmax: { type: 'number', description: 'a probability 0..1' },
        markNonEct: { type: 'boolean' },
        byRate: {
          type: 'array',
          description: 'Kmin, Kmax and Pmax of each egress port by its link rate [{rate, kmin, kmax, pmax}] (HPCC ns-3 KMIN_MAP/KMAX_MAP/PMAX_MAP); other ports take kmin, kmax, pmax',
          items: {
            type: 'object',
            additionalProperties: false,
            description: 'an egress port rate and its RED thresholds {rate, kmin, kmax, pmax}',
            properties: { rate: RATE, kmin: BYTES, kmax: BYTES, pmax: { type: 'number', description: 'a probability 0..1' } },
            required: ['rate', 'kmin', 'kmax', 'pmax'],
          },
        },
      },
    },
    ecmpHash: { enum: ['rocelab', 'hpcc-ns3'], description: 'rocelab or hpcc-ns3' },
    ecmpSeed: { type: 'integer', description: ECMP_SEED },
    ecmpOrder: { enum: ['port', 'hpcc-bfs'], description: 'port (next hops by port name) or hpcc-bfs (HPCC ns-3 route BFS order)' },
    scheduler: {
      type: 'object',
      additionalProperties: false,
      description: 'egress scheduling {strict, weights}',
      properties: { strict: PRIORITY_LIST, weights: { type: 'array', items: { type: 'number' }, description: '8 DWRR weights ≥ 0' } },
    },
    losslessFlood: { enum: ['flood', 'drop'], description: 'flood or drop' },
    macAgeing: DURATION,
    arpAgeing: DURATION,
    watchdog: {
      type: 'object',
      additionalProperties: false,
      description: 'PFC watchdog {enabled, ports, action, detection, restoration, poll}',
      properties: {
        enabled: { type: 'boolean' },
        ports: { enum: ['all', 'hostFacing'], description: 'all or hostFacing' },
        action: { enum: ['drop', 'forward', 'alert'], description: 'drop, forward or alert' },
        detection: DURATION,
        restoration: DURATION,
        poll: DURATION,
      },
    },
    tagger: {
      type: 'object',
      additionalProperties: false,
      description: 'Tagger {lossless, beyond?}: the lossless priority of each tag, and drop or {lossy: P} past the last',
      properties: {
        lossless: { ...PRIORITY_LIST, minItems: 1, description: 'the lossless priority of each tag, in tag order, e.g. [3, 4]' },
        beyond: {
          description: 'drop, or {lossy: P} with a lossy priority P',
          anyOf: [
            { const: 'drop', description: 'drop' },
            { type: 'object', additionalProperties: false, required: ['lossy'], properties: { lossy: { type: 'integer', description: 'a lossy priority 0..7' } }, description: '{lossy: P}' },
          ],
        },
      },
      required: ['lossless'],
    },
  },
} as const;

/** A bad value in a `switch:` object; `field` is relative to it (`ecn.kmax`). */
export type SwitchProblem = FieldProblem;

type Raw = Record<string, unknown>;

/** A value outside its range; `expected` says what would be accepted. */
class FieldError extends Error {
  constructor(readonly expected: string) {
    super(expected);
  }
}

/** Profile defaults, then `defaults.switch`, then the node's `switch:` — each field overrides. */
export function resolveSwitchSettings(
  profile: Profile,
  timing: Timing,
  rateBps: number,
  layers: ReadonlyArray<Raw | undefined>,
  units: UnitParsers,
  problems: SwitchProblem[],
): SwitchSettings {
  const s = profileSettings(profile, timing, rateBps);
  for (const raw of layers) if (raw !== undefined) applyLayer(s, raw, units, problems);
  checkTogether(s, problems);
  return s;
}

function applyLayer(s: SwitchSettings, raw: Raw, units: UnitParsers, problems: SwitchProblem[]): void {
  const parse = <T>(field: string, value: unknown, fn: (v: never) => T, check?: (v: T) => string | null) => readField(problems, field, value, fn, check);
  const positive = (what: string) => (v: number) => (v > 0 ? null : `${what} > 0`);
  const set = <K extends keyof SwitchSettings>(key: K, value: SwitchSettings[K] | undefined) => {
    if (value !== undefined) s[key] = value;
  };
  set('bufferBytes', parse('bufferBytes', raw.bufferBytes, units.bytes, positive('a buffer size in bytes')));
  set('alpha', parse('alpha', raw.alpha, Number, (v) => (v > 0 && Number.isFinite(v) ? null : 'a dynamic-threshold factor α > 0, e.g. 0.125')));
  const alphaByRate = raw.alphaByRate as Raw[] | undefined;
  if (alphaByRate !== undefined) {
    s.alphaByRate = alphaByRate.map((e, i) => ({
      rateBps: parse(`alphaByRate[${i}].rate`, e.rate, units.rate, positive('a link rate')) ?? 0,
      alpha: parse(`alphaByRate[${i}].alpha`, e.alpha, Number, (v) => (v > 0 && Number.isFinite(v) ? null : 'a dynamic-threshold factor α > 0, e.g. 0.25')) ?? s.alpha,
    }));
  }
  set('reserveBytes', parse('reserveBytes', raw.reserveBytes, units.bytes));
  set('cableMeters', parse('cableMeters', raw.cableMeters, Number, (v) => (v >= 0 ? null : 'a cable length in metres ≥ 0')));
  set('headroomBytes', parse('headroomBytes', raw.headroomBytes, units.bytes, positive('a headroom in bytes')));
  set('losslessPriorities', parse('losslessPriorities', raw.losslessPriorities, priorities));
  set('dscpMap', parse('dscpMap', raw.dscpMap, (m: Raw) => dscpOverrides(s.dscpMap, m)));
  set('xoffBytes', parse('xoffBytes', raw.xoffBytes, units.bytes, positive('an XOFF threshold in bytes')));
  set('xonBytes', parse('xonBytes', raw.xonBytes, units.bytes));
  set('xonOffsetBytes', parse('xonOffsetBytes', raw.xonOffsetBytes, units.bytes));
  const pools = raw.pools as Raw[] | undefined;
  if (pools !== undefined) {
    s.pools = pools.map((pool, i) => ({
      name: String(pool.name),
      priorities: parse(`pools[${i}].priorities`, pool.priorities, priorities) ?? [],
      sizeBytes: parse(`pools[${i}].size`, pool.size, units.bytes, positive('a pool size in bytes')) ?? 0,
      alpha: parse(`pools[${i}].alpha`, pool.alpha, Number, (v) => (v > 0 && Number.isFinite(v) ? null : 'a dynamic-threshold factor α > 0')) ?? null,
    }));
  }
  set('pauseQuanta', parse('pauseQuanta', raw.pauseQuanta, Number, (v) => (Number.isInteger(v) && v >= 1 && v <= PFC_MAX_QUANTA ? null : 'pause quanta in 1..65535')));
  set('pauseRefresh', parse('pauseRefresh', raw.pauseRefresh, (v: string) => (v === 'half' || v === 'none' ? v : units.duration(v)), (v) => (v === 0 ? 'half, none, or a duration > 0' : null)));
  const ecn = raw.ecn as Raw | undefined;
  if (ecn !== undefined) {
    s.ecn = {
      enabled: (ecn.enabled as boolean | undefined) ?? s.ecn.enabled,
      priorities: parse('ecn.priorities', ecn.priorities, priorities) ?? s.ecn.priorities,
      kminBytes: parse('ecn.kmin', ecn.kmin, units.bytes) ?? s.ecn.kminBytes,
      kmaxBytes: parse('ecn.kmax', ecn.kmax, units.bytes) ?? s.ecn.kmaxBytes,
      pmax: parse('ecn.pmax', ecn.pmax, units.probability) ?? s.ecn.pmax,
      markNonEct: (ecn.markNonEct as boolean | undefined) ?? s.ecn.markNonEct,
    };
    const byRate = ecn.byRate as Raw[] | undefined;
    if (byRate !== undefined) {
      s.ecnByRate = byRate.map((e, i) => ({
        rateBps: parse(`ecn.byRate[${i}].rate`, e.rate, units.rate, positive('a link rate')) ?? 0,
        kminBytes: parse(`ecn.byRate[${i}].kmin`, e.kmin, units.bytes) ?? 0,
        kmaxBytes: parse(`ecn.byRate[${i}].kmax`, e.kmax, units.bytes) ?? Infinity,
        pmax: parse(`ecn.byRate[${i}].pmax`, e.pmax, units.probability) ?? 0,
      }));
    }
  }
  set('ecmpHash', raw.ecmpHash as SwitchSettings['ecmpHash'] | undefined);
  set('ecmpOrder', raw.ecmpOrder as SwitchSettings['ecmpOrder'] | undefined);
  set('ecmpSeed', parse('ecmpSeed', raw.ecmpSeed, Number, (v) => (Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff ? null : ECMP_SEED)));
  const scheduler = raw.scheduler as Raw | undefined;
  if (scheduler !== undefined) {
    set('strictPriorities', parse('scheduler.strict', scheduler.strict, priorities));
    set('weights', parse('scheduler.weights', scheduler.weights, (w: number[]) => w, (w) => (w.length === PFC_PRIORITIES && w.every((x) => x >= 0 && Number.isFinite(x)) ? null : '8 DWRR weights ≥ 0, one per priority')));
  }
  set('losslessFlood', raw.losslessFlood as SwitchSettings['losslessFlood'] | undefined);
  set('macAgeingPs', parse('macAgeing', raw.macAgeing, units.duration, positive('a MAC ageing time')));
  set('arpAgeingPs', parse('arpAgeing', raw.arpAgeing, units.duration, positive('an ARP ageing time')));
  const wd = raw.watchdog as Raw | undefined;
  if (wd !== undefined) {
    s.watchdog = {
      enabled: (wd.enabled as boolean | undefined) ?? s.watchdog.enabled,
      ports: (wd.ports as 'all' | 'hostFacing' | undefined) ?? s.watchdog.ports,
      action: (wd.action as WatchdogAction | undefined) ?? s.watchdog.action,
      detectionPs: parse('watchdog.detection', wd.detection, units.duration, positive('a detection time')) ?? s.watchdog.detectionPs,
      restorationPs: parse('watchdog.restoration', wd.restoration, units.duration, positive('a restoration time')) ?? s.watchdog.restorationPs,
      pollPs: parse('watchdog.poll', wd.poll, units.duration, positive('a poll interval')) ?? s.watchdog.pollPs,
    };
  }
  const tagger = raw.tagger as Raw | undefined;
  if (tagger !== undefined) {
    const beyond = tagger.beyond as 'drop' | { lossy: number } | undefined;
    s.tagger = {
      // In tag order: the list is not sorted (tag 1 on its first priority).
      losslessByTag: parse('tagger.lossless', tagger.lossless, tagOrder) ?? [],
      beyond: beyond === undefined ? { lossy: TAGGER_BEYOND_LOSSY_PRIORITY } : beyond === 'drop' ? 'drop' : { lossy: parse('tagger.beyond.lossy', beyond.lossy, Number, priorityCheck) ?? 0 },
    };
  }
}

const priorityCheck = (p: number): string | null => (Number.isInteger(p) && p >= 0 && p < PFC_PRIORITIES ? null : 'a priority 0..7');

function tagOrder(list: number[]): number[] {
  for (const p of list) if (priorityCheck(p) !== null) throw new FieldError(`a list of priorities in 0..7 (${p} is not one)`);
  if (new Set(list).size !== list.length) throw new FieldError('each priority once (a tag per priority)');
  return [...list];
}

/**
 * Tagger against the rest: each tag's priority lossless, the one past the last lossy, and a DSCP
 * for each (the tag travels as the DSCP its priority is classified from, Tagger §5).
 */
function checkTagger(s: SwitchSettings, problems: SwitchProblem[]): void {
  const t = s.tagger!;
  const lossless = `losslessPriorities: [${s.losslessPriorities.join(', ')}]`;
  for (const p of t.losslessByTag) {
    if (!s.losslessPriorities.includes(p)) problems.push({ field: 'tagger.lossless', expected: `lossless priorities (${lossless})`, actual: `${p}, which is lossy` });
  }
  const priorities = [...t.losslessByTag, ...(t.beyond === 'drop' ? [] : [t.beyond.lossy])];
  if (t.beyond !== 'drop' && s.losslessPriorities.includes(t.beyond.lossy)) {
    problems.push({ field: 'tagger.beyond.lossy', expected: `a lossy priority (not in ${lossless})`, actual: t.beyond.lossy });
  }
  for (const p of priorities) {
    if (s.dscpMap.includes(p)) continue;
    const field = t.beyond !== 'drop' && p === t.beyond.lossy ? 'tagger.beyond.lossy' : 'tagger.lossless';
    problems.push({ field, expected: `priorities some DSCP maps to: the tag travels as that DSCP (add one under dscpMap, e.g. {${p === 4 ? 34 : 8 * p}: ${p}})`, actual: `priority ${p}, which no DSCP maps to` });
  }
}

/** Rules between fields, once every layer is applied. */
function checkTogether(s: SwitchSettings, problems: SwitchProblem[]): void {
  if ((s.xoffBytes === null) !== (s.xonBytes === null)) {
    problems.push({ field: s.xoffBytes === null ? 'xoffBytes' : 'xonBytes', expected: 'xoffBytes and xonBytes set together (static thresholds)', actual: 'only one of them' });
  } else if (s.xoffBytes !== null && s.xonBytes! >= s.xoffBytes) {
    problems.push({ field: 'xonBytes', expected: `an XON threshold below XOFF (< ${s.xoffBytes} B)`, actual: s.xonBytes });
  }
  if (s.pools !== null) checkPools(s.pools, problems);
  if (s.ecn.kmaxBytes <= s.ecn.kminBytes) problems.push({ field: 'ecn.kmax', expected: `Kmax above Kmin (> ${s.ecn.kminBytes} B)`, actual: s.ecn.kmaxBytes });
  s.ecnByRate.forEach((e, i) => {
    if (e.kmaxBytes <= e.kminBytes) problems.push({ field: `ecn.byRate[${i}].kmax`, expected: `Kmax above Kmin (> ${e.kminBytes} B)`, actual: e.kmaxBytes });
  });
  checkRatesOnce('ecn.byRate', s.ecnByRate, problems);
  checkRatesOnce('alphaByRate', s.alphaByRate, problems);
  if (s.alphaByRate.length > 0 && s.pools !== null) {
    problems.push({ field: 'alphaByRate', expected: 'alphaByRate without pools: a pool has its own α (pools[].alpha), alphaByRate the α of each ingress port; set one of them', actual: 'both alphaByRate and pools' });
  }
  if (s.alphaByRate.length > 0 && s.xoffBytes !== null) {
    problems.push({ field: 'alphaByRate', expected: 'alphaByRate with the dynamic threshold: fixed xoffBytes/xonBytes take no α', actual: 'both alphaByRate and xoffBytes' });
  }
  if (s.tagger !== null) checkTagger(s, problems);
  const w = s.watchdog;
  if (w.enabled && (w.pollPs > w.detectionPs || w.pollPs > w.restorationPs)) {
    problems.push({
      field: 'watchdog.poll',
      expected: `a poll interval no longer than detection (${formatDuration(w.detectionPs)}) and restoration (${formatDuration(w.restorationPs)})`,
      actual: formatDuration(w.pollPs),
    });
  }
}

/** One entry per link rate: a port must not have two sets of values. Rates that did not parse are reported already. */
function checkRatesOnce(field: string, entries: ReadonlyArray<{ rateBps: number }>, problems: SwitchProblem[]): void {
  entries.forEach((e, i) => {
    const first = entries.findIndex((x) => x.rateBps === e.rateBps);
    if (e.rateBps > 0 && first < i) problems.push({ field: `${field}[${i}].rate`, expected: `each rate once (${field}[${first}] has it already)`, actual: `${e.rateBps} b/s` });
  });
}

/** Every priority in exactly one pool, and pool names unique: a priority without a pool would have no buffer to use. */
function checkPools(pools: readonly BufferPool[], problems: SwitchProblem[]): void {
  const owner = new Map<number, string>();
  for (const pool of pools) {
    for (const p of pool.priorities) {
      const other = owner.get(p);
      if (other !== undefined) problems.push({ field: 'pools', expected: 'pools that cover every priority 0..7 exactly once', actual: `priority ${p} in both ${other} and ${pool.name}` });
      owner.set(p, pool.name);
    }
  }
  const missing = Array.from({ length: PFC_PRIORITIES }, (_, p) => p).filter((p) => !owner.has(p));
  if (missing.length > 0) problems.push({ field: 'pools', expected: 'pools that cover every priority 0..7 exactly once', actual: `priorit${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')} in none` });
  const names = pools.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) problems.push({ field: 'pools', expected: 'pool names used once', actual: `${twice} twice` });
}

function priorities(list: number[]): number[] {
  for (const p of list) if (!(Number.isInteger(p) && p >= 0 && p < PFC_PRIORITIES)) throw new FieldError(`a list of priorities in 0..7 (${p} is not one)`);
  return [...new Set(list)].sort((a, b) => a - b);
}

function dscpOverrides(base: DscpMap, map: Raw): DscpMap {
  const out = [...base];
  for (const [key, value] of Object.entries(map)) {
    const dscp = Number(key);
    if (!(Number.isInteger(dscp) && dscp >= 0 && dscp <= 63)) throw new FieldError(`DSCP keys in 0..63 (${key} is not one)`);
    if (!(Number.isInteger(value) && (value as number) >= 0 && (value as number) < PFC_PRIORITIES)) throw new FieldError(`priorities in 0..7 (DSCP ${key} maps to ${String(value)})`);
    out[dscp] = value as number;
  }
  return out;
}
