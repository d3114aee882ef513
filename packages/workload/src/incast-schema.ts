/**
 * The `incast` workload: N senders, one receiver. Every sender posts one WRITE of `sizeBytes`
 * to `to`; with `stagger`, the sender in position i (of `from`) starts at start + i·stagger.
 *
 * ```yaml
 * - {kind: incast, to: h9, from: [h1, h2, h3], sizeBytes: 1MB, start: 0us}
 * - {kind: incast, to: h1, from: all, sizeBytes: 64KB, start: 10us, stagger: 1us}   # every other host
 * ```
 */
import { CLASS_PROPERTIES, resolveClass, type ConnectionClass } from './transport.js';
import { Fields, PHRASE, type HostRef, type UnitParsers } from './fields.js';
import { checkWorkloadIndex } from './flow-id.js';
import { hostSetRefs, hostSetSchema, resolveHostSet, type HostSet } from './host-set.js';

export interface IncastWorkload extends ConnectionClass {
  kind: 'incast';
  index: number;
  to: string;
  /** The senders; `all` = every host but `to`, sorted by name. */
  from: HostSet;
  sizeBytes: number;
  startPs: number;
  /** Sender i starts at startPs + i·staggerPs (0 = all at once). */
  staggerPs: number;
}

export const incastSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'to', 'from', 'sizeBytes', 'start'],
  properties: {
    kind: { const: 'incast' },
    to: { type: 'string', description: 'the name of the receiving host' },
    from: { ...hostSetSchema, description: 'the sending hosts: a list of distinct host names, or all (every host but the receiver)' },
    sizeBytes: { type: ['integer', 'string'], description: PHRASE.bytes },
    start: { type: 'string', description: `a start time: ${PHRASE.duration}` },
    stagger: { type: 'string', description: `the delay between successive senders' starts: ${PHRASE.duration}` },
    ...CLASS_PROPERTIES,
  },
} as const;

interface RawIncast {
  to: string;
  from: 'all' | string[];
  sizeBytes: string | number;
  start: string;
  stagger?: string;
}

export function incastHostRefs(raw: Record<string, unknown>): HostRef[] {
  const item = raw as unknown as RawIncast;
  return [{ field: 'to', name: item.to }, ...hostSetRefs('from', item.from)];
}

export function resolveIncast(raw: Record<string, unknown>, index: number, units: UnitParsers): IncastWorkload {
  const item = raw as unknown as RawIncast;
  const fields = new Fields();
  checkWorkloadIndex(index, fields);
  const from = resolveHostSet('from', item.from, 1, fields);
  if (from !== 'all') from.forEach((name, i) => name === item.to && fields.add(`from[${i}]`, `a host other than the receiver (${item.to})`, name));
  const stagger = item.stagger;
  return fields.done({
    kind: 'incast',
    index,
    to: item.to,
    from,
    sizeBytes: fields.parse('sizeBytes', item.sizeBytes, () => units.bytes(item.sizeBytes)),
    startPs: fields.parse('start', item.start, () => units.duration(item.start)),
    staggerPs: stagger === undefined ? 0 : fields.parse('stagger', stagger, () => units.duration(stagger)),
    ...resolveClass(raw),
  });
}
