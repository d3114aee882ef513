// Classic pcap with nanosecond timestamps: the file header and record layouts, virtual
// picoseconds to seconds + nanoseconds, truncation to the snapshot length, argument checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PCAP_MAX_SNAPLEN, pcapFileHeader, pcapRecord } from './pcap.js';

const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const u32s = (bytes: Uint8Array, count: number): number[] => Array.from({ length: count }, (_, i) => view(bytes).getUint32(4 * i, true));

test('file header: nanosecond magic, version 2.4, zone and sigfigs 0, snaplen, LINKTYPE_ETHERNET', () => {
  const header = pcapFileHeader(65_535);
  assert.equal(header.length, 24);
  assert.deepEqual([...header.subarray(0, 4)], [0x4d, 0x3c, 0xb2, 0xa1], 'magic 0xA1B23C4D, little-endian');
  const v = view(header);
  assert.deepEqual([v.getUint16(4, true), v.getUint16(6, true)], [2, 4]);
  assert.deepEqual([v.getInt32(8, true), v.getUint32(12, true), v.getUint32(16, true), v.getUint32(20, true)], [0, 0, 65_535, 1]);
});

test('record: seconds and nanoseconds of virtual time, sub-nanosecond picoseconds truncated', () => {
  const packet = Uint8Array.from({ length: 70 }, (_, i) => i);
  const cases: Array<[number, number, number]> = [
    [0, 0, 0],
    [999, 0, 0],
    [1_000, 0, 1],
    [999_999_999_999, 0, 999_999_999],
    [1_000_000_000_000, 1, 0],
    [1_234_567_891_234_567, 1_234, 567_891_234],
    [Number.MAX_SAFE_INTEGER, 9_007, 199_254_740],
  ];
  for (const [timePs, seconds, nanoseconds] of cases) {
    const record = pcapRecord(timePs, packet, 65_535);
    assert.deepEqual(u32s(record, 4), [seconds, nanoseconds, 70, 70], `${timePs} ps`);
    assert.deepEqual(record.subarray(16), packet);
  }
});

test('record: a packet longer than the snapshot length keeps its first snaplen bytes and its real length', () => {
  const packet = Uint8Array.from({ length: 1_098 }, (_, i) => i & 0xff);
  const record = pcapRecord(5_000, packet, 128);
  assert.equal(record.length, 16 + 128);
  assert.deepEqual(u32s(record, 4), [0, 5, 128, 1_098]);
  assert.deepEqual(record.subarray(16), packet.subarray(0, 128));
  assert.deepEqual(u32s(pcapRecord(5_000, packet.subarray(0, 128), 128), 4), [0, 5, 128, 128], 'exactly snaplen: whole');
});

test('bad arguments are RangeErrors naming the argument, the expectation and the value', () => {
  const packet = new Uint8Array(60);
  for (const snaplen of [0, -1, 1.5, Number.NaN, PCAP_MAX_SNAPLEN + 1]) {
    assert.throws(() => pcapFileHeader(snaplen), { name: 'RangeError', message: `pcapFileHeader: snaplen: expected an integer number of bytes (1..262144), got ${snaplen}` });
    assert.throws(() => pcapRecord(0, packet, snaplen), { name: 'RangeError', message: `pcapRecord: snaplen: expected an integer number of bytes (1..262144), got ${snaplen}` });
  }
  assert.equal(pcapFileHeader(PCAP_MAX_SNAPLEN).length, 24);
  for (const timePs of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    assert.throws(() => pcapRecord(timePs, packet, 128), { name: 'RangeError', message: `pcapRecord: timePs: expected a non-negative safe integer of picoseconds, got ${timePs}` });
  }
  assert.throws(() => pcapRecord(0, new Uint8Array(0), 128), { name: 'RangeError', message: 'pcapRecord: packet: expected at least 1 byte, got 0' });
});
