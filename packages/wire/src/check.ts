/**
 * Small field checks shared by the validators. Each throws a WireError naming the field and
 * the expectation; the path string is built by the caller, so hot paths build it only on failure.
 */
import $protobuf from 'protobufjs/minimal.js';
import { WireError } from './errors.js';

const utf8Length = $protobuf.util.utf8.length;

export function invalid(field: string, expected: string, got: unknown): never {
  throw new WireError('invalid_field', field, expected, typeof got === 'string' ? JSON.stringify(got) : String(got));
}

export function tooLarge(field: string, expected: string, got: string): never {
  throw new WireError('too_large', field, expected, got);
}

/** An integer in 0..max (a non-integer, negative or NaN value fails). */
export function isUint(value: number, max: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= max;
}

export function bitsExpected(bits: number): string {
  const article = bits === 8 || bits === 11 || bits === 18 ? 'an' : 'a';
  return `${article} ${bits}-bit value (0..${2 ** bits - 1})`;
}

export function checkUint(value: number, bits: number, field: string): void {
  if (!isUint(value, 2 ** bits - 1)) invalid(field, bitsExpected(bits), value);
}

/** 64-bit fields decode to numbers; only safe integers are exact (DESIGN §3: ps below 2^53). */
export function checkU64(value: number, field: string): void {
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    invalid(field, `a non-negative safe integer (0..${Number.MAX_SAFE_INTEGER})`, value);
  }
}

export function checkFinite(value: number, field: string): void {
  if (!Number.isFinite(value)) invalid(field, 'a finite number', value);
}

export function checkCount(length: number, max: number, field: string): void {
  if (length > max) tooLarge(field, `at most ${max} entries`, `${length}`);
}

export function checkString(value: string, max: number, field: string): void {
  // A UTF-16 code unit takes at most 3 UTF-8 bytes: most strings need no counting.
  if (value.length * 3 <= max) return;
  const bytes = utf8Length(value);
  if (bytes > max) tooLarge(field, `at most ${max} UTF-8 bytes`, `${bytes} bytes`);
}

export function checkStrings(values: readonly string[], maxCount: number, maxBytes: number, field: string): void {
  checkCount(values.length, maxCount, field);
  for (let i = 0; i < values.length; i++) checkString(values[i]!, maxBytes, `${field}[${i}]`);
}

export function checkBytes(value: Uint8Array, max: number, field: string): void {
  if (value.length > max) tooLarge(field, `at most ${max} bytes`, `${value.length} bytes`);
}
