/**
 * The `pingmesh` workload (after Guo et al., "Pingmesh", SIGCOMM 2015): every host of the set
 * probes every other host once per `interval` with a small WRITE on a dedicated probe
 * connection; the NIC records each probe's round-trip time.
 *
 * ```yaml
 * - {kind: pingmesh, interval: 100us}                                  # all hosts, 64 B probes
 * - {kind: pingmesh, hosts: [h1, h2, h3], interval: 10us, sizeBytes: 0, start: 1ms, stop: 5ms}
 * ```
 */
import { CLASS_PROPERTIES, resolveClass, type ConnectionClass } from './transport.js';
import { Fields, PHRASE, type UnitParsers } from './fields.js';
import { checkWorkloadIndex } from './flow-id.js';
import { hostsFieldSchema, resolveHostSet, type HostSet } from './host-set.js';
import { resolveWindow } from './poisson-schema.js';

/** Probe payload when the file gives none (Pingmesh's probes are small: RTT, not throughput). */
export const DEFAULT_PROBE_BYTES = 64;

export interface PingmeshWorkload extends ConnectionClass {
  kind: 'pingmesh';
  index: number;
  hosts: HostSet;
  intervalPs: number;
  sizeBytes: number;
  startPs: number;
  /** No probe at or after stopPs (null = until the run ends). */
  stopPs: number | null;
}

export const pingmeshSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'interval'],
  properties: {
    kind: { const: 'pingmesh' },
    hosts: hostsFieldSchema,
    interval: { type: 'string', description: `the time between two probes of one pair: ${PHRASE.duration}, above 0` },
    sizeBytes: { type: ['integer', 'string'], description: `the probe size: ${PHRASE.bytes} (default ${DEFAULT_PROBE_BYTES})` },
    start: { type: 'string', description: `a start time: ${PHRASE.duration} (default 0us)` },
    stop: { type: 'string', description: `a time to stop probing: ${PHRASE.duration}, after start` },
    ...CLASS_PROPERTIES,
  },
} as const;

interface RawPingmesh {
  hosts?: 'all' | string[];
  interval: string;
  sizeBytes?: string | number;
  start?: string;
  stop?: string;
}

export function resolvePingmesh(raw: Record<string, unknown>, index: number, units: UnitParsers): PingmeshWorkload {
  const item = raw as unknown as RawPingmesh;
  const fields = new Fields();
  checkWorkloadIndex(index, fields);
  const hosts = resolveHostSet('hosts', item.hosts, 2, fields);
  const before = fields.problems.length;
  const intervalPs = fields.parse('interval', item.interval, () => units.duration(item.interval));
  if (fields.problems.length === before && intervalPs === 0) fields.add('interval', pingmeshSchema.properties.interval.description, item.interval);
  const size = item.sizeBytes;
  const sizeBytes = size === undefined ? DEFAULT_PROBE_BYTES : fields.parse('sizeBytes', size, () => units.bytes(size));
  return fields.done({ kind: 'pingmesh', index, hosts, intervalPs, sizeBytes, ...resolveWindow(item, units, fields), ...resolveClass(raw) });
}
