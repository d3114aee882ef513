import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIpv4, inSubnet, parseIpv4, parseSubnet } from './ipv4.js';
import { EXPECT, UnitError, formatDuration, parseBytes, parseDuration, parseProbability, parseRate } from './units.js';

function rejects(parse: () => unknown, expected: string): void {
  assert.throws(parse, (err: unknown) => err instanceof UnitError && err.expected === expected);
}

test('durations: every unit, exact picoseconds, decimals when whole', () => {
  assert.equal(parseDuration('0ps'), 0);
  assert.equal(parseDuration('0us'), 0);
  assert.equal(parseDuration('7ps'), 7);
  assert.equal(parseDuration('500ns'), 500_000);
  assert.equal(parseDuration('1us'), 1_000_000);
  assert.equal(parseDuration('1.5us'), 1_500_000);
  assert.equal(parseDuration('221.2ns'), 221_200); // a 1,106-byte frame at 40 Gb/s (DESIGN §3)
  assert.equal(parseDuration('5.12ns'), 5_120); // one pause quantum at 100 Gb/s
  assert.equal(parseDuration('0.001ns'), 1);
  assert.equal(parseDuration('2ms'), 2_000_000_000);
  assert.equal(parseDuration('200ms'), 200_000_000_000);
  assert.equal(parseDuration('1s'), 1_000_000_000_000);
  assert.equal(parseDuration('9007.199254740991s'), Number.MAX_SAFE_INTEGER);
});

test('durations: unitless, negative, fractional ps, non-finite and too large are rejected', () => {
  for (const bad of ['1', '0', '', 'us', '-1us', '+1us', '1.us', '.5us', '0.5ps', '1.0001ns', '1 us', '1µs', '1US', '1e3us', 'Infinityus', 'NaN', '9007.199254740992s', '3h']) {
    rejects(() => parseDuration(bad), EXPECT.duration);
  }
  rejects(() => parseDuration(5 as unknown as string), EXPECT.duration);
});

test('rates: suffixes, decimals, bps suffix, plain integers', () => {
  assert.equal(parseRate('40G'), 40_000_000_000);
  assert.equal(parseRate('40Gbps'), 40_000_000_000);
  assert.equal(parseRate('2.5G'), 2_500_000_000);
  assert.equal(parseRate('100M'), 100_000_000);
  assert.equal(parseRate('10K'), 10_000);
  assert.equal(parseRate('1000'), 1000);
  assert.equal(parseRate('1000bps'), 1000);
  assert.equal(parseRate(40_000_000_000), 40_000_000_000);
});

test('rates: unknown suffix, zero, negative, fractional bit/s are rejected', () => {
  for (const bad of ['40Q', '40g', '40 G', '0G', '0', '-1G', '1.5', '0.0001K', 'G', '40GB', '40Gbit', '', '1e9']) {
    rejects(() => parseRate(bad), EXPECT.rate);
  }
  for (const bad of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) rejects(() => parseRate(bad), EXPECT.rate);
});

test('sizes: plain integers, decimal and binary suffixes', () => {
  assert.equal(parseBytes(0), 0);
  assert.equal(parseBytes(1500), 1500);
  assert.equal(parseBytes('1500'), 1500);
  assert.equal(parseBytes('64B'), 64);
  assert.equal(parseBytes('1.5KB'), 1500);
  assert.equal(parseBytes('4MB'), 4_000_000);
  assert.equal(parseBytes('40MB'), 40_000_000);
  assert.equal(parseBytes('1GB'), 1_000_000_000);
  assert.equal(parseBytes('1KiB'), 1024);
  assert.equal(parseBytes('1MiB'), 1_048_576);
  assert.equal(parseBytes('0.5KiB'), 512);
  assert.equal(parseBytes('2GiB'), 2_147_483_648);
});

test('sizes: negative, fractional, unknown suffix are rejected', () => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) rejects(() => parseBytes(bad), EXPECT.bytes);
  for (const bad of ['-1', '1.5', '1.5B', '0.0001KB', '4mb', '4 MB', '4TB', 'MB', '']) rejects(() => parseBytes(bad), EXPECT.bytes);
});

test('probabilities: decimals, fractions, bounds', () => {
  assert.equal(parseProbability(0), 0);
  assert.equal(parseProbability(1), 1);
  assert.equal(parseProbability(0.01), 0.01);
  assert.equal(parseProbability('0.01'), 0.01);
  assert.equal(parseProbability('0'), 0);
  assert.equal(parseProbability('1/256'), 1 / 256);
  assert.equal(parseProbability('256/256'), 1);
  for (const bad of [-0.1, 1.01, Number.NaN, Number.POSITIVE_INFINITY]) rejects(() => parseProbability(bad), EXPECT.probability);
  for (const bad of ['2/1', '1/0', '0/0', '-1/2', '1%', '1.5', 'half', '']) rejects(() => parseProbability(bad), EXPECT.probability);
});

test('formatDuration picks the largest unit and round-trips', () => {
  assert.equal(formatDuration(0), '0ps');
  assert.equal(formatDuration(7), '7ps');
  assert.equal(formatDuration(1_500_000), '1.5us');
  assert.equal(formatDuration(221_200), '221.2ns');
  assert.equal(formatDuration(2_000_000_000), '2ms');
  assert.equal(formatDuration(1_000_000_000_001), '1.000000000001s');
  for (const ps of [0, 1, 999, 1000, 1_234_567, 5_120, 200_000_000_000, Number.MAX_SAFE_INTEGER]) {
    assert.equal(parseDuration(formatDuration(ps)), ps);
  }
  assert.throws(() => formatDuration(-1), RangeError);
  assert.throws(() => formatDuration(1.5), RangeError);
});

test('IPv4 addresses and subnets', () => {
  assert.equal(parseIpv4('10.0.1.11'), 0x0a00010b);
  assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
  assert.equal(parseIpv4('0.0.0.0'), 0);
  assert.equal(formatIpv4(0xc0a80001), '192.168.0.1');
  for (const bad of ['10.0.1', '10.0.1.256', '10.0.01.1', '10.0.1.1.1', ' 10.0.1.1', 'a.b.c.d', '']) rejects(() => parseIpv4(bad), EXPECT.ipv4);

  assert.deepEqual(parseSubnet('10.0.1.0/24'), { base: 0x0a000100, prefixLength: 24 });
  assert.deepEqual(parseSubnet('0.0.0.0/0'), { base: 0, prefixLength: 0 });
  assert.deepEqual(parseSubnet('10.0.1.7/32'), { base: 0x0a000107, prefixLength: 32 });
  for (const bad of ['10.0.1.1/24', '10.0.1.0/33', '10.0.1.0', '10.0.1.0/', '10.0.1.0/024', '1.0.0.0/0']) rejects(() => parseSubnet(bad), EXPECT.subnet);

  assert.ok(inSubnet(parseIpv4('10.0.1.200'), parseSubnet('10.0.1.0/24')));
  assert.ok(!inSubnet(parseIpv4('10.0.2.1'), parseSubnet('10.0.1.0/24')));
  assert.ok(inSubnet(parseIpv4('200.1.2.3'), parseSubnet('128.0.0.0/1')));
});
