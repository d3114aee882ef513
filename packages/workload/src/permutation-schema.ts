/**
 * The `permutation` workload: every host of the set sends `sizeBytes` to one other host, the
 * destinations forming a random permutation without fixed points (every host sends once and
 * receives once). The permutation comes from the pod seed, so another seed gives another one.
 *
 * ```yaml
 * - {kind: permutation, sizeBytes: 4MB, start: 0us}                   # every host of the pod
 * - {kind: permutation, hosts: [h1, h2, h3, h4], sizeBytes: 1MiB, start: 5us}
 * ```
 */
import { CLASS_PROPERTIES, resolveClass, type ConnectionClass } from './transport.js';
import { Fields, PHRASE, type UnitParsers } from './fields.js';
import { checkWorkloadIndex } from './flow-id.js';
import { hostsFieldSchema, resolveHostSet, type HostSet } from './host-set.js';

export interface PermutationWorkload extends ConnectionClass {
  kind: 'permutation';
  index: number;
  hosts: HostSet;
  sizeBytes: number;
  startPs: number;
}

export const permutationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'sizeBytes', 'start'],
  properties: {
    kind: { const: 'permutation' },
    hosts: hostsFieldSchema,
    sizeBytes: { type: ['integer', 'string'], description: PHRASE.bytes },
    start: { type: 'string', description: `a start time: ${PHRASE.duration}` },
    ...CLASS_PROPERTIES,
  },
} as const;

interface RawSet {
  hosts?: 'all' | string[];
  sizeBytes: string | number;
  start: string;
}

export function resolvePermutation(raw: Record<string, unknown>, index: number, units: UnitParsers): PermutationWorkload {
  return { kind: 'permutation', ...resolveSet(raw, index, units) };
}

/** The fields `permutation` and `shuffle` share: `{hosts?, sizeBytes, start}`. */
export function resolveSet(raw: Record<string, unknown>, index: number, units: UnitParsers): Omit<PermutationWorkload, 'kind'> {
  const item = raw as unknown as RawSet;
  const fields = new Fields();
  checkWorkloadIndex(index, fields);
  return fields.done({
    index,
    hosts: resolveHostSet('hosts', item.hosts, 2, fields),
    sizeBytes: fields.parse('sizeBytes', item.sizeBytes, () => units.bytes(item.sizeBytes)),
    startPs: fields.parse('start', item.start, () => units.duration(item.start)),
    ...resolveClass(raw),
  });
}
