/**
 * The `shuffle` workload (all-to-all): every host of the set sends `sizeBytes` to every other
 * host of the set, all starting at `start`, each pair on its own connection.
 *
 * ```yaml
 * - {kind: shuffle, sizeBytes: 256KB, start: 0us}
 * - {kind: shuffle, hosts: [h1, h2, h3], sizeBytes: 1MB, start: 10us}
 * ```
 */
import { CLASS_PROPERTIES, type ConnectionClass } from './transport.js';
import { PHRASE, type UnitParsers } from './fields.js';
import { hostsFieldSchema, type HostSet } from './host-set.js';
import { resolveSet } from './permutation-schema.js';

export interface ShuffleWorkload extends ConnectionClass {
  kind: 'shuffle';
  index: number;
  hosts: HostSet;
  sizeBytes: number;
  startPs: number;
}

export const shuffleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'sizeBytes', 'start'],
  properties: {
    kind: { const: 'shuffle' },
    hosts: hostsFieldSchema,
    sizeBytes: { type: ['integer', 'string'], description: PHRASE.bytes },
    start: { type: 'string', description: `a start time: ${PHRASE.duration}` },
    ...CLASS_PROPERTIES,
  },
} as const;

export function resolveShuffle(raw: Record<string, unknown>, index: number, units: UnitParsers): ShuffleWorkload {
  return { kind: 'shuffle', ...resolveSet(raw, index, units) };
}
