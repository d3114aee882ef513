import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeMemory, pssOfRollup } from './memory.js';

test('PSS is read from the Pss line of smaps_rollup, not from Pss_Anon or Pss_File', () => {
  const rollup = ['55d0c0e00000-7ffc2a1ff000 ---p 00000000 00:00 0  [rollup]', 'Rss:               64512 kB', 'Pss:               23040 kB', 'Pss_Anon:          21000 kB', 'Pss_File:           2040 kB'].join('\n');
  assert.equal(pssOfRollup(rollup), 23040 * 1024);
  assert.equal(pssOfRollup('Rss: 1 kB\n'), 0);
});

test('a process\'s memory is divided over the nodes it hosts, and PSS is read only when asked', () => {
  const one = nodeMemory(1, true);
  const four = nodeMemory(4, false);
  assert.ok(one.rssBytes > 0);
  assert.equal(four.pssBytes, 0);
  assert.ok(Math.abs(four.rssBytes * 4 - one.rssBytes) < one.rssBytes * 0.2, `${four.rssBytes} × 4 ≈ ${one.rssBytes}`);
  if (process.platform === 'linux') assert.ok(one.pssBytes > 0 && one.pssBytes <= one.rssBytes, `0 < PSS ${one.pssBytes} ≤ RSS ${one.rssBytes}`);
});
