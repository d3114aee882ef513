import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hpccEcmpHash, murmur3x86_32 } from './ecmp-hash-hpcc.js';

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
const bytes = (text: string) => new TextEncoder().encode(text);

// EcmpHash is MurmurHash3_x86_32: the published vectors (SMHasher; the Wikipedia article's table),
// which a C build of HPCC's own `SwitchNode::EcmpHash` (x86-64, gcc) also prints.
test('EcmpHash over bytes gives the published MurmurHash3_x86_32 vectors, tails of 0..3 bytes included', () => {
  const vectors: Array<[string, number, number]> = [
    ['', 0, 0x00000000],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['a', 0x9747b28c, 0x7fa09ea6],
    ['aa', 0x9747b28c, 0x5d211726],
    ['aaa', 0x9747b28c, 0x283e0130],
    ['aaaa', 0x9747b28c, 0x5a97808a],
    ['Hello, world!', 1234, 0xfaf6cdb3],
    ['The quick brown fox jumps over the lazy dog', 0, 0x2e4ff723],
  ];
  for (const [text, seed, want] of vectors) assert.equal(hex(murmur3x86_32(bytes(text), seed)), hex(want), `"${text}" seed ${seed}`);
  assert.equal(hex(murmur3x86_32(new Uint8Array(4), 0)), '0x2362f9de', 'four zero bytes');
});

// Each expected value was printed by a C harness holding HPCC's EcmpHash and GetOutDev's union
// verbatim (x86-64, little-endian); 100,000 pseudo-random keys agreed as well when this was written.
test('the GetOutDev key (sip, dip, sport | dport << 16) hashes as HPCC ns-3 does', () => {
  const vectors: Array<[number, number, number, number, number, number]> = [
    // HPCC's own addressing: node 0 → node 1 (11.0.0.1 → 11.0.1.1), first port 10000, dport 100.
    [0x0b000001, 0x0b000101, 10000, 100, 0, 0x13adce27],
    [0x0b000001, 0x0b000101, 10000, 100, 4, 0xdc054e1b],
    // rocelab's: 10.0.1.11 → 10.0.2.11, RoCEv2 source ports, destination 4791.
    [0x0a00010b, 0x0a00020b, 49152, 4791, 0, 0x9455bb7d],
    [0x0a00010b, 0x0a00020b, 49153, 4791, 0, 0x4fb27643],
    [0x0a00010b, 0x0a00020b, 49152, 4791, 7, 0x90c2b494],
    [0x0a00010b, 0x0a00020b, 49152, 4791, 0xffffffff, 0xdec33835],
    [0xffffffff, 0xffffffff, 0xffff, 0xffff, 0x80000000, 0xa0ad8f6e],
    [0, 0, 0, 0, 0, 0xd941144b],
  ];
  for (const [sip, dip, sport, dport, seed, want] of vectors) {
    assert.equal(hex(hpccEcmpHash(sip, dip, sport, dport, seed)), hex(want), `${hex(sip)} → ${hex(dip)} ${sport}/${dport} seed ${seed}`);
  }
  // 0x13adce27 = 330,157,607: nexthops[1] of 2, [2] of 3, [3] of 4.
  assert.deepEqual([2, 3, 4].map((n) => hpccEcmpHash(0x0b000001, 0x0b000101, 10000, 100, 0) % n), [1, 2, 3]);
});

test('the word form equals the byte form over the key’s 12 little-endian bytes', () => {
  const key = new Uint8Array(12);
  const view = new DataView(key.buffer);
  let x = 1;
  const next = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
  for (let i = 0; i < 1000; i++) {
    const [sip, dip, ports, seed] = [next(), next(), next(), next()];
    const [sport, dport] = [ports & 0xffff, ports >>> 16];
    view.setUint32(0, sip, true);
    view.setUint32(4, dip, true);
    view.setUint32(8, (sport | (dport << 16)) >>> 0, true);
    assert.equal(hpccEcmpHash(sip, dip, sport, dport, seed), murmur3x86_32(key, seed));
  }
});

test('every field of the key and the seed take part; the result is an unsigned 32-bit integer', () => {
  const base = hpccEcmpHash(0x0a00010b, 0x0a00020b, 49152, 4791, 3);
  assert.notEqual(hpccEcmpHash(0x0a00010c, 0x0a00020b, 49152, 4791, 3), base);
  assert.notEqual(hpccEcmpHash(0x0a00010b, 0x0a00020c, 49152, 4791, 3), base);
  assert.notEqual(hpccEcmpHash(0x0a00010b, 0x0a00020b, 49153, 4791, 3), base);
  assert.notEqual(hpccEcmpHash(0x0a00010b, 0x0a00020b, 49152, 4792, 3), base);
  assert.notEqual(hpccEcmpHash(0x0a00010b, 0x0a00020b, 49152, 4791, 4), base);
  assert.ok(Number.isInteger(base) && base >= 0 && base <= 0xffffffff);
});
