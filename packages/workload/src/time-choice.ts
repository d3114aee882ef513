/**
 * A time that is fixed or drawn: `2ms`, or `{uniform: [2ms, 4ms]}` — one `uniformInt` draw in
 * whole picoseconds, both ends included, from a seeded stream the caller names. A flow's `start`
 * draws from its sender's stream `workload:<index>` when the host starts; a fault's `at` and
 * `for` (@rocelab/topology fault-draws.ts) from the fault's own streams when the file loads.
 * One schema, one resolution and one draw, so both read and behave alike.
 */
import type { Rng } from '@rocelab/sim';
import { PHRASE, type Fields, type UnitParsers } from './fields.js';

/** A resolved time: fixed, or an interval [minPs, maxPs] to draw from. */
export type TimeChoice = { kind: 'at'; atPs: number } | { kind: 'uniform'; minPs: number; maxPs: number };

/** A time as written (what `timeChoiceSchema` admits). */
export type RawTimeChoice = string | { uniform: [string, string] };

/** The JSON Schema of a time; `what` opens its description (`a start time`). */
export function timeChoiceSchema(what: string) {
  return {
    description: `${what}: ${PHRASE.duration}, or {uniform: [0us, 500us]}`,
    anyOf: [
      { type: 'string' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['uniform'],
        properties: {
          uniform: {
            type: 'array',
            description: 'a pair of durations [earliest, latest]',
            items: { type: 'string', description: PHRASE.duration },
            minItems: 2,
            maxItems: 2,
          },
        },
      },
    ],
  } as const;
}

/** A schema-valid time in ps; problems go to `fields` under `field` (`start`, `start.uniform[1]`). */
export function resolveTimeChoice(value: RawTimeChoice, field: string, units: UnitParsers, fields: Fields): TimeChoice {
  if (typeof value === 'string') return { kind: 'at', atPs: fields.parse(field, value, () => units.duration(value)) };
  const [lo, hi] = value.uniform;
  const before = fields.problems.length;
  const minPs = fields.parse(`${field}.uniform[0]`, lo, () => units.duration(lo));
  const maxPs = fields.parse(`${field}.uniform[1]`, hi, () => units.duration(hi));
  if (fields.problems.length === before && minPs > maxPs) fields.add(`${field}.uniform`, 'an interval [earliest, latest] with earliest ≤ latest', value.uniform);
  return { kind: 'uniform', minPs, maxPs };
}

/** The time in ps: the fixed one, or one draw from `rng` (none for a fixed time). */
export function drawTime(choice: TimeChoice, rng: () => Pick<Rng, 'uniformInt'>): number {
  return choice.kind === 'at' ? choice.atPs : rng().uniformInt(choice.minPs, choice.maxPs);
}
