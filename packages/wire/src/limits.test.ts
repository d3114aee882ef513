// Every size limit of DecodeLimits, at its default and when lowered by the caller: the message
// one past the limit is refused with `too_large` and a message naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeEnvelope } from './codec.js';
import { WireError } from './errors.js';
import { sampleBatch, sampleEnvelopes } from './fixtures.js';
import { FrameKind, newFrame } from './frame.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from './limits.js';
import type { Envelope } from './messages.js';

function tooLarge(message: string | RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof WireError, `expected a WireError, got ${String(err)}`);
    assert.equal(err.code, 'too_large');
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

function roundTrip(env: Envelope, limits?: Partial<DecodeLimits>): Envelope {
  return decodeEnvelope(encodeEnvelope(env), limits);
}

function sample<T extends Envelope['type']>(type: T): Extract<Envelope, { type: T }> {
  const env = structuredClone(sampleEnvelopes().find((e) => e.type === type)!);
  return env as Extract<Envelope, { type: T }>;
}

test('the defaults are the documented ones', () => {
  assert.deepEqual(DEFAULT_DECODE_LIMITS, {
    maxMessageBytes: 4 * 1024 * 1024,
    maxFramesPerBatch: 65_536,
    maxStringBytes: 1_024,
    maxJsonBytes: 1024 * 1024,
    maxRepeated: 65_536,
  });
  assert.ok(Object.isFrozen(DEFAULT_DECODE_LIMITS));
});

test('message size is checked before decoding', () => {
  // Not protobuf at all: only the size check can have produced the error.
  const huge = new Uint8Array(4 * 1024 * 1024 + 1).fill(0xff);
  assert.throws(() => decodeEnvelope(huge), tooLarge('Envelope: expected at most 4194304 bytes, got 4194305 bytes'));
  const bytes = encodeEnvelope({ type: 'batch', batch: sampleBatch(5) });
  assert.throws(() => decodeEnvelope(bytes, { maxMessageBytes: bytes.length - 1 }), tooLarge(`Envelope: expected at most ${bytes.length - 1} bytes, got ${bytes.length} bytes`));
  assert.equal(decodeEnvelope(bytes, { maxMessageBytes: bytes.length }).type, 'batch');
});

test('frames per batch: 65,536 pass, 65,537 do not', () => {
  const batchOf = (n: number): Envelope => {
    const frame = newFrame(FrameKind.ack, { ttl: 0 });
    return {
      type: 'batch',
      batch: { lease: 1, window: 1, frames: Array(n).fill(frame), arrivalPs: Array(n).fill(1), originSeq: Array(n).fill(2), fcsBad: Array(n).fill(false) },
    };
  };
  assert.equal(roundTrip(batchOf(65_536)).type, 'batch');
  assert.throws(() => roundTrip(batchOf(65_537)), tooLarge('Batch.frames: expected at most 65536 entries, got 65537'));
  assert.throws(() => roundTrip({ type: 'batch', batch: sampleBatch(5) }, { maxFramesPerBatch: 4 }), tooLarge('Batch.frames: expected at most 4 entries, got 5'));
});

test('strings: at most 1,024 UTF-8 bytes, counted in bytes not characters', () => {
  const hello = sample('hello');
  hello.hello.node = 'n'.repeat(1024);
  assert.equal(roundTrip(hello).type, 'hello');
  hello.hello.node = 'n'.repeat(1025);
  assert.throws(() => roundTrip(hello), tooLarge('Hello.node: expected at most 1024 UTF-8 bytes, got 1025 bytes'));
  hello.hello.node = 'ü'.repeat(513); // 513 characters, 1026 bytes
  assert.throws(() => roundTrip(hello), tooLarge('Hello.node: expected at most 1024 UTF-8 bytes, got 1026 bytes'));
  hello.hello.node = 'tor1';
  hello.hello.nodes[1] = 'x'.repeat(2000);
  assert.throws(() => roundTrip(hello), tooLarge('Hello.nodes[1]: expected at most 1024 UTF-8 bytes, got 2000 bytes'));
  const goodbye: Envelope = { type: 'goodbye', goodbye: { reason: 'abcdef' } };
  assert.throws(() => roundTrip(goodbye, { maxStringBytes: 5 }), tooLarge('Goodbye.reason: expected at most 5 UTF-8 bytes, got 6 bytes'));
});

test('bytes fields share the string limit', () => {
  const hello = sample('hello');
  hello.hello.proof = new Uint8Array(1025);
  assert.throws(() => roundTrip(hello), tooLarge('Hello.proof: expected at most 1024 bytes, got 1025 bytes'));
  const report = sample('report');
  report.report.nodes[1]!.hash = new Uint8Array(33);
  assert.throws(() => roundTrip(report, { maxStringBytes: 32 }), tooLarge('Report.nodes[1].hash: expected at most 32 bytes, got 33 bytes'));
});

test('JSON strings have their own, larger limit', () => {
  const report = sample('report');
  report.report.nodes[0]!.stats!.resultsJson = JSON.stringify({ flows: 'x'.repeat(100_000) });
  assert.equal(roundTrip(report).type, 'report');
  assert.throws(() => roundTrip(report, { maxJsonBytes: 50_000 }), tooLarge('Report.nodes[0].stats.resultsJson: expected at most 50000 UTF-8 bytes, got 100012 bytes'));
  const fault = sample('fault');
  assert.throws(() => roundTrip(fault, { maxJsonBytes: 4 }), tooLarge(/^Fault\.spec: expected at most 4 UTF-8 bytes, got \d+ bytes$/));
});

test('repeated fields and maps: at most maxRepeated entries', () => {
  const hello = sample('hello');
  hello.hello.nodes = Array.from({ length: 65_537 }, (_, i) => `n${i}`);
  assert.throws(() => roundTrip(hello), tooLarge('Hello.nodes: expected at most 65536 entries, got 65537'));
  const limits = { maxRepeated: 1 };
  const cases: [Envelope, string][] = [
    [sample('directory'), 'Directory.members'],
    [sample('grant'), 'Grant.faults'],
    [sample('report'), 'Report.nodes'],
  ];
  const directory = sample('directory');
  directory.directory.members = [directory.directory.members[0]!];
  cases.push([directory, 'Directory.members[0].nodes']);
  const grant = sample('grant');
  grant.grant.faults = [];
  cases.push([grant, 'Grant.linksDown']);
  const losses = sample('grant');
  losses.grant.faults = [];
  losses.grant.linksDown = [];
  losses.grant.losses.push({ link: 'a>b', frames: 1 });
  cases.push([losses, 'Grant.losses']);
  const report = sample('report');
  report.report.nodes = [report.report.nodes[0]!];
  cases.push([report, 'Report.nodes[0].stats.dropped']);
  const links = sample('report');
  links.report.nodes = [];
  cases.push([links, 'Report.links']);
  const failed = sample('report');
  failed.report.nodes = [];
  failed.report.links = [];
  failed.report.linksFailed.push('a>b');
  cases.push([failed, 'Report.linksFailed']);
  for (const [env, field] of cases) {
    assert.throws(() => roundTrip(env, limits), tooLarge(`${field}: expected at most 1 entries, got 2`), field);
  }
});
