/**
 * A bad value in one field of a mechanism's config: the shared shape of @rocelab/sim (fields.ts).
 */
export type { FieldProblem } from '@rocelab/sim';
