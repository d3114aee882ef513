import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRegions } from './memory-region.js';

test('regions get page-aligned addresses and rkeys in registration order, the same every time', () => {
  const regions = () => {
    const m = new MemoryRegions();
    return [m.register(new Uint8Array(100), ['remoteRead']), m.register(new Uint8Array(8192), ['remoteWrite'])];
  };
  const [a, b] = regions();
  assert.deepEqual(regions(), [a, b]);
  assert.equal(a!.address % 4096n, 0n);
  assert.ok(b!.address >= a!.address + 4096n, 'a guard page between regions: an overrun never lands in the next one');
  assert.notEqual(a!.rkey, b!.rkey);
});

test('a remote access fails as a whole on a wrong rkey, outside the region, or without the right; nothing is written', () => {
  const m = new MemoryRegions();
  const bytes = new Uint8Array(64);
  const r = m.register(bytes, ['remoteWrite', 'remoteRead']);
  assert.equal(m.write(r.address + 60n, new Uint8Array([1, 2, 3, 4, 5]), r.rkey), 'bounds');
  assert.equal(m.write(r.address - 1n, new Uint8Array([1]), r.rkey), 'bounds');
  assert.equal(m.write(r.address, new Uint8Array([1]), r.rkey ^ 1), 'rkey');
  assert.equal(m.atomic('fetchAdd', r.address, r.rkey, 1n), 'access');
  assert.deepEqual([...bytes], new Array(64).fill(0));
  assert.equal(m.write(r.address + 59n, new Uint8Array([1, 2, 3, 4, 5]), r.rkey), null);
  assert.deepEqual(m.read(r.address + 58n, 3, r.rkey), new Uint8Array([0, 1, 2]));
  assert.equal(m.read(r.address, 1, 0), 'rkey');
});

test('FETCH_AND_ADD and COMPARE_AND_SWAP on an aligned 8-byte word, modulo 2^64, returning the word as it was', () => {
  const m = new MemoryRegions();
  const bytes = new Uint8Array(16);
  const r = m.register(bytes, ['remoteAtomic']);
  assert.equal(m.atomic('fetchAdd', r.address + 8n, r.rkey, 5n), 0n);
  assert.equal(m.atomic('fetchAdd', r.address + 8n, r.rkey, 2n ** 64n - 1n), 5n, 'adding 2^64 − 1 subtracts one');
  assert.equal(new DataView(bytes.buffer).getBigUint64(8, true), 4n);
  assert.equal(m.atomic('compareSwap', r.address + 8n, r.rkey, 3n, 99n), 4n, 'no swap: the word was not 3');
  assert.equal(m.atomic('compareSwap', r.address + 8n, r.rkey, 4n, 99n), 4n);
  assert.equal(m.atomic('fetchAdd', r.address + 8n, r.rkey, 0n), 99n);
  assert.equal(m.atomic('fetchAdd', r.address + 4n, r.rkey, 1n), 'misaligned');
  assert.equal(m.atomic('fetchAdd', r.address + 16n, r.rkey, 1n), 'bounds');
});
