import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameKind, IntMode, newFrame, pfcFrame, rdmaFields, type Frame } from './frame.js';
import { RecordReader, RecordWriter } from './frame-record.js';
import { sampleDataFrame } from './fixtures.js';

const roundTrip = (frames: readonly Frame[]): Frame[] => {
  const w = new RecordWriter();
  for (const f of frames) w.frame(f);
  const r = new RecordReader(w.written.slice());
  const out: Frame[] = [];
  while (!r.done) out.push(r.frame());
  return out;
};

test('every field of a frame comes back: a frame whose every number differs from the defaults, with quanta, INT hops and RDMA bytes', () => {
  const f = newFrame(FrameKind.data);
  // Every number field of the frame, whatever fields it will have: a field the record forgets fails here.
  let n = 1;
  for (const key of Object.keys(f) as (keyof Frame)[]) {
    if (typeof f[key] === 'number') (f as unknown as Record<string, number>)[key] = key === 'kind' ? FrameKind.data : key === 'intMode' ? IntMode.hops : n++ * 1_000_003.5;
    if (typeof f[key] === 'boolean') (f as unknown as Record<string, boolean>)[key] = true;
  }
  f.pfcQuanta = [1, 2, 3, 0xffff, 5, 6, 7, 8];
  f.int = [{ qlenBytes: 1, txBytes: 2 ** 40, tsPs: 3.25, lineRateBps: 100e9 }, { qlenBytes: 5, txBytes: 6, tsPs: 7, lineRateBps: 8 }];
  f.rdma = rdmaFields({ va: 2 ** 52 + 1, rkey: 0xdeadbeef, data: new Uint8Array([1, 2, 3]), immediate: 9, operand: new Uint8Array(8).fill(4), swap: new Uint8Array(8).fill(5), original: new Uint8Array(8).fill(6) });
  const [back] = roundTrip([f]);
  assert.deepEqual(back, f);
  assert.deepEqual(Object.keys(back!), Object.keys(f), 'the same fields in the same order: the same shape as every other frame');
});

test('frames of every kind, many in one buffer that grows past its first 64 KiB', () => {
  const frames: Frame[] = [];
  for (let i = 0; i < 2000; i++) frames.push(sampleDataFrame(i), pfcFrame(0xff, [i, 0, 1, 2, 3, 4, 5, 0xffff]), newFrame(FrameKind.ack, { psn: i, syndrome: 0x60 }));
  assert.deepEqual(roundTrip(frames), frames);
});

test('numbers and byte strings between frames, and a reset writer starts again', () => {
  const w = new RecordWriter();
  w.f64(-1);
  w.reset();
  w.f64(1.5);
  w.u32(0xffffffff);
  w.byteString(new Uint8Array([7, 8]));
  w.frame(newFrame(FrameKind.cnp));
  const r = new RecordReader(w.written);
  assert.deepEqual([r.f64(), r.u32(), [...r.byteString()], r.frame().kind, r.done], [1.5, 0xffffffff, [7, 8], FrameKind.cnp, true]);
});
