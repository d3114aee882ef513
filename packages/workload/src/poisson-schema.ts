/**
 * The `poisson` workload: open-loop arrivals. Each host of the set offers `load` of its own link
 * rate: messages arrive as a Poisson process of rate λ = load × link rate / (8 × mean message
 * size), each to a uniformly random other host of the set, with a size that is fixed or drawn
 * from a CDF file (size-cdf.ts; the file format is described in packages/topology/src/cdf.ts).
 * Load counts payload bytes, as HPCC's traffic_gen.py does; headers come on top.
 *
 * ```yaml
 * - {kind: poisson, load: 0.3, sizes: {cdf: cdf/websearch.txt}, stop: 5ms}   # path relative to this file
 * - {kind: poisson, hosts: [h1, h2, h3], load: 0.5, sizes: {fixed: 64KB}, start: 100us}
 * ```
 */
import { CLASS_PROPERTIES, resolveClass, type ConnectionClass } from './transport.js';
import { Fields, PHRASE, type UnitParsers, type WorkloadFiles } from './fields.js';
import { checkWorkloadIndex } from './flow-id.js';
import { hostsFieldSchema, resolveHostSet, type HostSet } from './host-set.js';
import type { SizeDistribution } from './size-cdf.js';

export interface PoissonWorkload extends ConnectionClass {
  kind: 'poisson';
  index: number;
  hosts: HostSet;
  /** Offered load per host, a fraction of its link rate: 0 < load ≤ 1. */
  load: number;
  sizes: SizeDistribution;
  /** Every message on a QP of its own (HPCC ns-3's flows), instead of one QP per peer. */
  qpPerMessage: boolean;
  /** Arrivals happen after startPs and before stopPs (null = until the run ends). */
  startPs: number;
  stopPs: number | null;
}

const FIXED = `a message size: ${PHRASE.bytes}, at least 1`;
const CDF = 'the path of a CDF file of "size cumulative_probability" lines, relative to the topology file';

export const poissonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'load', 'sizes'],
  properties: {
    kind: { const: 'poisson' },
    hosts: hostsFieldSchema,
    load: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: "a load: the fraction of each host's link rate to offer, a number 0 < load ≤ 1 like 0.3" },
    sizes: {
      description: 'message sizes: {cdf: path/to/file.txt} or {fixed: 64KB}',
      anyOf: [
        { type: 'object', additionalProperties: false, required: ['cdf'], properties: { cdf: { type: 'string', minLength: 1, description: CDF } } },
        { type: 'object', additionalProperties: false, required: ['fixed'], properties: { fixed: { type: ['integer', 'string'], description: FIXED } } },
      ],
    },
    start: { type: 'string', description: `a start time: ${PHRASE.duration} (default 0us)` },
    stop: { type: 'string', description: `a time to stop arrivals: ${PHRASE.duration}, after start` },
    qpPerMessage: { type: 'boolean', description: 'true: every message on a QP of its own, as each flow of HPCC ns-3 (needs stop); false (default): one QP per peer, messages in turn' },
    ...CLASS_PROPERTIES,
  },
} as const;

interface RawPoisson {
  hosts?: 'all' | string[];
  load: number;
  sizes: { cdf: string } | { fixed: string | number };
  start?: string;
  stop?: string;
  qpPerMessage?: boolean;
}

function resolveSizes(sizes: RawPoisson['sizes'], units: UnitParsers, files: WorkloadFiles, fields: Fields): SizeDistribution {
  if ('cdf' in sizes) return { kind: 'cdf', source: sizes.cdf, points: fields.attempt('sizes.cdf', sizes.cdf, [], () => files.readCdf(sizes.cdf)) };
  const before = fields.problems.length;
  const sizeBytes = fields.parse('sizes.fixed', sizes.fixed, () => units.bytes(sizes.fixed));
  if (fields.problems.length === before && sizeBytes === 0) fields.add('sizes.fixed', FIXED, sizes.fixed);
  return { kind: 'fixed', sizeBytes };
}

/** `start` (default 0) and `stop` (after start, or null), shared with `pingmesh`. */
export function resolveWindow(raw: { start?: string; stop?: string }, units: UnitParsers, fields: Fields): { startPs: number; stopPs: number | null } {
  const { start, stop } = raw;
  const startPs = start === undefined ? 0 : fields.parse('start', start, () => units.duration(start));
  if (stop === undefined) return { startPs, stopPs: null };
  const before = fields.problems.length;
  const stopPs = fields.parse('stop', stop, () => units.duration(stop));
  if (fields.problems.length === before && stopPs <= startPs) fields.add('stop', `a time after start (${start ?? '0us'})`, stop);
  return { startPs, stopPs };
}

export function resolvePoisson(raw: Record<string, unknown>, index: number, units: UnitParsers, files: WorkloadFiles): PoissonWorkload {
  const item = raw as unknown as RawPoisson;
  const fields = new Fields();
  checkWorkloadIndex(index, fields);
  const hosts = resolveHostSet('hosts', item.hosts, 2, fields);
  const sizes = resolveSizes(item.sizes, units, files, fields);
  const qpPerMessage = item.qpPerMessage ?? false;
  // The QPs are set up before the run: their number must be known, so the arrivals must end.
  if (qpPerMessage && item.stop === undefined) fields.add('stop', 'a time to stop arrivals: qpPerMessage sets up a QP per message before the run, so their number must be bounded', item.stop);
  return fields.done({ kind: 'poisson', index, hosts, load: item.load, sizes, qpPerMessage, ...resolveWindow(item, units, fields), ...resolveClass(raw) });
}
