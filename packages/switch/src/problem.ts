/**
 * A bad value in one field of a mechanism's config: what the field is, what would be accepted,
 * what was found. The topology loader prefixes the field with its path in the file.
 */
export interface FieldProblem {
  field: string;
  expected: string;
  actual: unknown;
}
