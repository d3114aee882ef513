// Decoding is total: whatever bytes arrive, decodeEnvelope returns a valid envelope or throws a
// WireError, never another error. Deterministic: a seeded PRNG, so a failure replays exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeEnvelope } from './codec.js';
import { WireError } from './errors.js';
import { sampleBatch, sampleEnvelopes } from './fixtures.js';
import type { Envelope } from './messages.js';
import { validateEnvelope } from './validate.js';

/** mulberry32: a tiny 32-bit PRNG, good enough to pick bytes. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const codes = new Map<string, number>();

/** Decodes; a result must itself be valid and re-encode to an equal message. */
function decodeOrWireError(bytes: Uint8Array, what: string): Envelope | WireError {
  let env: Envelope;
  try {
    env = decodeEnvelope(bytes);
  } catch (err) {
    if (!(err instanceof WireError)) {
      assert.fail(`${what}: ${String(err)} escaped for input ${Buffer.from(bytes).toString('hex')}`);
    }
    codes.set(err.code, (codes.get(err.code) ?? 0) + 1);
    return err;
  }
  validateEnvelope(env);
  assert.deepStrictEqual(decodeEnvelope(encodeEnvelope(env)), env, `${what}: not stable under re-encoding`);
  return env;
}

const valid = [...sampleEnvelopes(), { type: 'batch', batch: sampleBatch(9) } as Envelope].map(encodeEnvelope);

test('every prefix of a valid message decodes to something valid or throws a WireError', () => {
  const batch = encodeEnvelope({ type: 'batch', batch: sampleBatch(5) });
  let truncated = 0;
  for (let n = 0; n < batch.length; n++) {
    const result = decodeOrWireError(batch.subarray(0, n), `prefix ${n}`);
    if (result instanceof WireError && result.code === 'truncated') truncated++;
  }
  assert.ok(truncated > batch.length / 2, `most prefixes end inside a field (${truncated}/${batch.length})`);
  for (const bytes of valid) {
    for (let n = 0; n < bytes.length; n++) decodeOrWireError(bytes.subarray(0, n), `prefix ${n}`);
  }
});

test('truncated input says so', () => {
  const batch = encodeEnvelope({ type: 'batch', batch: sampleBatch(5) });
  const result = decodeOrWireError(batch.subarray(0, batch.length - 1), 'cut');
  assert.ok(result instanceof WireError);
  assert.equal(result.code, 'truncated');
  assert.match(result.message, /^Envelope: expected a complete message .*, got .* in \d+ bytes$/);
});

test('random byte strings', () => {
  const random = mulberry32(0x5eed);
  for (let i = 0; i < 5_000; i++) {
    const bytes = new Uint8Array(Math.floor(random() * 64));
    for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
    decodeOrWireError(bytes, `random #${i}`);
  }
});

test('random byte strings that start like a batch', () => {
  const random = mulberry32(42);
  for (let i = 0; i < 5_000; i++) {
    const bytes = new Uint8Array(2 + Math.floor(random() * 96));
    for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
    bytes[0] = 0x12; // field 2 (batch), length-delimited
    bytes[1] = bytes.length - 2;
    decodeOrWireError(bytes, `batch-like #${i}`);
  }
});

test('random single-byte mutations of valid messages', () => {
  const random = mulberry32(7);
  for (let i = 0; i < 20_000; i++) {
    const bytes = Uint8Array.from(valid[i % valid.length]!);
    const at = Math.floor(random() * bytes.length);
    bytes[at] = random() < 0.5 ? Math.floor(random() * 256) : bytes[at]! ^ (1 << Math.floor(random() * 8));
    decodeOrWireError(bytes, `mutation #${i} at ${at}`);
  }
});

test('random multi-byte mutations, insertions and deletions', () => {
  const random = mulberry32(2024);
  for (let i = 0; i < 5_000; i++) {
    const bytes = [...valid[i % valid.length]!];
    for (let k = 1 + Math.floor(random() * 4); k > 0; k--) {
      const at = Math.floor(random() * (bytes.length + 1));
      const op = random();
      if (op < 0.4) bytes[at] = Math.floor(random() * 256);
      else if (op < 0.7) bytes.splice(at, 0, Math.floor(random() * 256));
      else bytes.splice(at, 1);
    }
    decodeOrWireError(Uint8Array.from(bytes), `edit #${i}`);
  }
});

test('the fuzzers reached every kind of failure', () => {
  for (const code of ['truncated', 'malformed', 'invalid_field', 'empty']) {
    assert.ok((codes.get(code) ?? 0) > 0, `no input produced ${code}: ${JSON.stringify([...codes])}`);
  }
});
