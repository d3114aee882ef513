/**
 * Bad input from a peer is a typed error with a stable `code`, never a crash (STYLE §9): the
 * runtime counts it, logs it and closes the link with the code as the close reason.
 *
 * - `too_large`     a size limit of `DecodeLimits` was exceeded (message, frames, repeated, string)
 * - `truncated`     the input ended inside a field or a nested message
 * - `malformed`     not protobuf: bad wire type, bad varint, unterminated group, invalid UTF-8
 * - `invalid_field` well-formed protobuf, but a value breaks an invariant (range, count, safe integer)
 * - `empty`         an Envelope with no body set
 */
export type WireErrorCode = 'too_large' | 'truncated' | 'malformed' | 'invalid_field' | 'empty';

export class WireError extends Error {
  override readonly name = 'WireError';

  constructor(
    readonly code: WireErrorCode,
    /** Where in the message, e.g. `Batch.frames[3].psn`; `Envelope` for the whole message. */
    readonly field: string,
    /** What was expected there, e.g. `a 24-bit value (0..16777215)`. */
    readonly expected: string,
    /** What was found, already formatted for the message. */
    readonly got: string,
  ) {
    super(`${field}: expected ${expected}, got ${got}`);
  }
}
