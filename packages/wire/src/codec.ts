/**
 * Envelope ⇄ bytes with the generated protobufjs code (proto/rocelab.proto). Encoding trusts
 * its caller (our own, typed values); decoding trusts nothing: it bounds the input size before
 * parsing, maps every parser failure to a WireError, validates limits and invariants, and only
 * then converts to plain objects (frames as full monomorphic `Frame`s).
 *
 * Unknown fields are skipped (protobufjs' default, `discardUnknown`), so an older peer reads a
 * newer peer's messages; changes of meaning are caught by PROTOCOL_VERSION in Hello instead.
 */
import $protobuf from 'protobufjs/minimal.js';
import { toEnvelope, viewEnvelope } from './convert.js';
import { WireError } from './errors.js';
import { rocelab as pb } from './gen/rocelab.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './limits.js';
import type { Envelope } from './messages.js';
import { ONE_BODY, validateEnvelope } from './validate.js';

// The generated module switches protobufjs' Long support off when it loads (scripts/gen.mjs),
// so 64-bit fields decode to numbers; values ≥ 2^53 come out inexact and fail validation.
if ($protobuf.util.Long) throw new Error('@rocelab/wire: protobufjs Long support must be off (see scripts/gen.mjs)');

/**
 * One writer reused for every message: protobufjs 8 writes straight into a growing buffer, so
 * reuse saves the regrowth on every call. finish() copies the bytes out, so callers own them.
 */
let writer = $protobuf.Writer.create();

/**
 * Serializes one envelope. The body is encoded field by field under the same (camelCase) names
 * as the proto; `type` is not sent, the oneof case is. A message-typed field left null
 * (NodeReport.stats) is absent on the wire. Values are not checked here: see validateEnvelope.
 */
export function encodeEnvelope(env: Envelope): Uint8Array {
  writer.reset(); // no forks are open after a completed encode, so this rewinds to 0
  try {
    return pb.Envelope.encode(env, writer).finish();
  } catch (err) {
    writer = $protobuf.Writer.create(); // an encode that threw may leave forks open
    throw err;
  }
}

function resolveLimits(limits: Partial<DecodeLimits> | undefined): DecodeLimits {
  return limits === undefined ? DEFAULT_DECODE_LIMITS : { ...DEFAULT_DECODE_LIMITS, ...limits };
}

/** protobufjs throws plain Errors; name what went wrong with a stable code instead. */
function parseError(err: unknown, size: number): WireError {
  const text = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError || text.startsWith('index out of range')) {
    return new WireError('truncated', 'Envelope', 'a complete message (no field or length past the end of its message)', `${text} in ${size} bytes`);
  }
  return new WireError('malformed', 'Envelope', 'a protobuf-encoded rocelab.Envelope', text);
}

/** Parses and checks one envelope from a peer; throws WireError on any bad input. */
export function decodeEnvelope(bytes: Uint8Array, limits?: Partial<DecodeLimits>): Envelope {
  const l = resolveLimits(limits);
  if (bytes.length > l.maxMessageBytes) {
    throw new WireError('too_large', 'Envelope', `at most ${l.maxMessageBytes} bytes`, `${bytes.length} bytes`);
  }
  let decoded: pb.Envelope;
  try {
    const reader = $protobuf.Reader.create(bytes);
    reader.discardUnknown = true;
    decoded = pb.Envelope.decode(reader);
  } catch (err) {
    throw parseError(err, bytes.length);
  }
  const view = viewEnvelope(decoded);
  if (view === null) throw new WireError('empty', 'Envelope', ONE_BODY, 'none');
  validateEnvelope(view, l);
  return toEnvelope(decoded)!;
}
