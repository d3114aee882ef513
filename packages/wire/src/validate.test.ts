// Every frame and batch invariant is refused on decode with code `invalid_field` and a message
// naming the field, the expectation and the value. The encoder does not check, so each bad
// value really travels on the wire (except those a uint32 cannot carry: see the last tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeEnvelope } from './codec.js';
import { WireError, type WireErrorCode } from './errors.js';
import { sampleBatch, sampleEnvelopes, samplePair } from './fixtures.js';
import { FrameKind, newFrame, type Frame } from './frame.js';
import type { Envelope, LinkBatch } from './messages.js';
import { validateEnvelope } from './validate.js';

function isWireError(code: WireErrorCode, message: string | RegExp) {
  return (err: unknown): true => {
    assert.ok(err instanceof WireError, `expected a WireError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

/** sampleBatch(5) (frame 3 is the PFC frame) with one change, through the wire. */
function decodeChanged(change: (b: LinkBatch) => void): () => Envelope {
  const batch = sampleBatch(5);
  change(batch);
  const bytes = encodeEnvelope({ type: 'batch', batch });
  return () => decodeEnvelope(bytes);
}

const frameCases: [keyof Frame, number, string][] = [
  ['srcMac', 2 ** 48, 'a 48-bit value (0..281474976710655)'],
  ['dstMac', 2 ** 50 + 1, 'a 48-bit value (0..281474976710655)'],
  ['dscp', 64, 'a 6-bit value (0..63)'],
  ['ecn', 4, 'a 2-bit value (0..3)'],
  ['ipId', 0x10000, 'a 16-bit value (0..65535)'],
  ['ttl', 256, 'an 8-bit value (0..255)'],
  ['udpSrcPort', 65_536, 'a 16-bit value (0..65535)'],
  ['udpDstPort', 65_536, 'a 16-bit value (0..65535)'],
  ['opcode', 256, 'an 8-bit value (0..255)'],
  ['destQp', 2 ** 24, 'a 24-bit value (0..16777215)'],
  ['psn', 16_777_216, 'a 24-bit value (0..16777215)'],
  ['syndrome', 300, 'an 8-bit value (0..255)'],
  ['msn', 2 ** 31, 'a 24-bit value (0..16777215)'],
  ['sackPsn', 2 ** 24, 'a 24-bit value (0..16777215)'],
  ['pfcEnable', 0x100, 'an 8-bit value (0..255)'],
];

for (const [field, value, expected] of frameCases) {
  test(`frame ${field} = ${value} is refused`, () => {
    const decode = decodeChanged((b) => {
      (b.frames[2] as unknown as Record<string, number>)[field] = value;
    });
    assert.throws(decode, isWireError('invalid_field', `Batch.frames[2].${field}: expected ${expected}, got ${value}`));
  });
}

test('the example from the brief, word for word', () => {
  const decode = decodeChanged((b) => {
    b.frames[3] = newFrame(FrameKind.data, { psn: 16_777_216 });
  });
  assert.throws(decode, isWireError('invalid_field', 'Batch.frames[3].psn: expected a 24-bit value (0..16777215), got 16777216'));
});

test('frame kind must be 1..7', () => {
  for (const kind of [0, 8, 255]) {
    const decode = decodeChanged((b) => {
      b.frames[1]!.kind = kind as FrameKind;
      b.frames[1]!.pfcQuanta = [];
    });
    assert.throws(decode, isWireError('invalid_field', `Batch.frames[1].kind: expected a frame kind: 1 (data), 2 (ack), 3 (cnp), 4 (pfc), 5 (TCP segment), 6 (TCP ACK) or 7 (credit), got ${kind}`));
  }
});

test('a PFC frame needs exactly 8 quanta, each 16 bits', () => {
  for (const quanta of [[], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const decode = decodeChanged((b) => {
      b.frames[3]!.pfcQuanta = quanta;
    });
    assert.throws(decode, isWireError('invalid_field', `Batch.frames[3].pfcQuanta: expected exactly 8 quanta on a PFC frame, got ${quanta.length}`));
  }
  const decode = decodeChanged((b) => {
    b.frames[3]!.pfcQuanta = [0, 0, 0, 0, 0, 0x10000, 0, 0];
  });
  assert.throws(decode, isWireError('invalid_field', 'Batch.frames[3].pfcQuanta[5]: expected a 16-bit value (0..65535), got 65536'));
});

test('a frame of another kind carries no quanta', () => {
  for (const kind of [FrameKind.data, FrameKind.ack, FrameKind.cnp]) {
    const decode = decodeChanged((b) => {
      b.frames[0] = newFrame(kind, { pfcQuanta: [0, 0, 0, 0, 0, 0, 0, 0] });
    });
    assert.throws(decode, isWireError('invalid_field', `Batch.frames[0].pfcQuanta: expected no quanta on a non-PFC frame (kind ${kind}), got 8`));
  }
});

test('the parallel arrays have the frames\' length', () => {
  const cases: [string, (b: LinkBatch) => void, number][] = [
    ['arrivalPs', (b) => b.arrivalPs.pop(), 4],
    ['originSeq', (b) => b.originSeq.push(1), 6],
    ['fcsBad', (b) => (b.fcsBad = []), 0],
    ['arrivalPs', (b) => b.frames.pop(), 5],
  ];
  for (const [name, change, got] of cases) {
    const frames = name === 'arrivalPs' && got === 5 ? 4 : 5;
    assert.throws(decodeChanged(change), isWireError('invalid_field', `Batch.${name}: expected ${frames} entries (one per frame), got ${got}`));
  }
});

test('64-bit values must be safe integers', () => {
  const unsafe = [2 ** 53, 2 ** 53 + 2, 2 ** 64 - 2 ** 12];
  for (const value of unsafe) {
    const got = String(value);
    assert.throws(
      decodeChanged((b) => (b.arrivalPs[4] = value)),
      isWireError('invalid_field', `Batch.arrivalPs[4]: expected a non-negative safe integer (0..9007199254740991), got ${got}`),
    );
    assert.throws(decodeChanged((b) => (b.originSeq[0] = value)), isWireError('invalid_field', /^Batch\.originSeq\[0\]: expected a non-negative safe integer/));
  }
  const grant = structuredClone(sampleEnvelopes()[3]!);
  assert.ok(grant.type === 'grant');
  grant.grant.faults[1]!.atPs = 2 ** 60;
  assert.throws(() => decodeEnvelope(encodeEnvelope(grant)), isWireError('invalid_field', `Grant.faults[1].atPs: expected a non-negative safe integer (0..9007199254740991), got ${2 ** 60}`));
  const report = structuredClone(sampleEnvelopes()[4]!);
  assert.ok(report.type === 'report');
  report.report.nodes[0]!.stats!.dropped['buffer'] = 2 ** 55;
  assert.throws(() => decodeEnvelope(encodeEnvelope(report)), isWireError('invalid_field', /^Report\.nodes\[0\]\.stats\.dropped\["buffer"\]: expected a non-negative safe integer/));
});

test('Status numbers must be finite', () => {
  const env = structuredClone(sampleEnvelopes()[6]!);
  assert.ok(env.type === 'status');
  env.status.dilation = Number.NaN;
  assert.throws(() => decodeEnvelope(encodeEnvelope(env)), isWireError('invalid_field', 'Status.dilation: expected a finite number, got NaN'));
  env.status.dilation = 1;
  env.status.lagSeconds = Number.POSITIVE_INFINITY;
  assert.throws(() => decodeEnvelope(encodeEnvelope(env)), isWireError('invalid_field', 'Status.lagSeconds: expected a finite number, got Infinity'));
});

test('a drop reason named __proto__ is refused', () => {
  const env = structuredClone(sampleEnvelopes()[4]!);
  assert.ok(env.type === 'report');
  Object.defineProperty(env.report.nodes[0]!.stats!.dropped, '__proto__', { value: 1, enumerable: true });
  assert.throws(() => decodeEnvelope(encodeEnvelope(env)), isWireError('invalid_field', 'Report.nodes[0].stats.dropped: expected drop reason names, got "__proto__"'));
});

// A uint32 on the wire cannot carry these; validateEnvelope still catches them on the sending side.
test('validateEnvelope refuses values a uint32 field would silently truncate', () => {
  const cases: [keyof Frame, number, string][] = [
    ['srcIp', 2 ** 32, 'Batch.frames[0].srcIp: expected a 32-bit value (0..4294967295), got 4294967296'],
    ['dstIp', -1, 'Batch.frames[0].dstIp: expected a 32-bit value (0..4294967295), got -1'],
    ['payloadBytes', 1.5, 'Batch.frames[0].payloadBytes: expected a 32-bit value (0..4294967295), got 1.5'],
    ['dmaLength', 2 ** 33, 'Batch.frames[0].dmaLength: expected a 32-bit value (0..4294967295), got 8589934592'],
  ];
  for (const [field, value, message] of cases) {
    const batch = sampleBatch(1);
    (batch.frames[0] as unknown as Record<string, number>)[field] = value;
    assert.throws(() => validateEnvelope({ type: 'batch', batch }), isWireError('invalid_field', message));
  }
  const hello = structuredClone(sampleEnvelopes()[0]!);
  assert.ok(hello.type === 'hello');
  hello.hello.protocolVersion = -1;
  assert.throws(() => validateEnvelope(hello), isWireError('invalid_field', 'Hello.protocolVersion: expected a 32-bit value (0..4294967295), got -1'));
  assert.throws(() => validateEnvelope({ type: 'nope' } as unknown as Envelope), isWireError('empty', /^Envelope: expected one body: .*, got "nope"$/));
});

test('a credit update carries exactly 8 FCCLs of 12 bits', () => {
  const withCredit = (fccl: number[]) =>
    decodeChanged((b) => {
      b.frames[1]!.kind = FrameKind.credit;
      b.frames[1]!.pfcQuanta = fccl;
    });
  assert.doesNotThrow(withCredit([0, 1, 2, 4095, 0, 0, 0, 0]));
  assert.throws(withCredit([0, 0, 0, 4096, 0, 0, 0, 0]), isWireError('invalid_field', 'Batch.frames[1].pfcQuanta[3]: expected a 12-bit value (0..4095), got 4096'));
  assert.throws(withCredit([1, 2]), isWireError('invalid_field', 'Batch.frames[1].pfcQuanta: expected exactly 8 FCCLs on a credit frame, got 2'));
});

test('a pair message names each link at most once, in increasing order, and names where a frame is bad', () => {
  const twice = samplePair();
  twice.links[1]!.link = 0;
  assert.throws(
    () => decodeEnvelope(encodeEnvelope({ type: 'pair', pair: twice })),
    isWireError('invalid_field', "PairBatch.links[1].link: expected a link index above the previous entry's (0): each link at most once, in increasing order, got 0"),
  );
  const badPsn = samplePair();
  badPsn.links[1]!.frames[0]!.psn = 2 ** 24;
  assert.throws(() => decodeEnvelope(encodeEnvelope({ type: 'pair', pair: badPsn })), isWireError('invalid_field', /^PairBatch\.links\[1\]\.frames\[0\]\.psn: /));
  const short = samplePair();
  short.links[0]!.fcsBad.pop();
  assert.throws(() => decodeEnvelope(encodeEnvelope({ type: 'pair', pair: short })), isWireError('invalid_field', 'PairBatch.links[0].fcsBad: expected 5 entries (one per frame), got 4'));
  // An idle window: no links at all, still a message.
  const empty = decodeEnvelope(encodeEnvelope({ type: 'pair', pair: { lease: 1, window: 1, links: [] } }));
  assert.deepStrictEqual(empty, { type: 'pair', pair: { lease: 1, window: 1, links: [] } });
});
