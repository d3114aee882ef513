// What a ConfigMap or a Docker config cannot carry beside the topology: app modules, CDF files, and native programs (issue 25).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTopology } from '@rocelab/topology';
import { twoHostPod } from '@rocelab/topology/testing';
import { describeFiles, filesBeside } from './files-beside.js';

test('a topology with native programs is refused by k8s and stack even by PATH names: each program is named with its host', () => {
  const pod = parseTopology(
    twoHostPod('p').replace('{name: h1, role: host, ip: 10.0.1.1}', '{name: h1, role: host, ip: 10.0.1.1, programs: [{run: [ib_write_bw, "{h2}"]}, {run: [ibv_devinfo]}]}'),
  );
  assert.deepEqual(filesBeside(pod), ['program ib_write_bw (h1)', 'program ibv_devinfo (h1)']);
  assert.equal(describeFiles(filesBeside(pod)), 'program ib_write_bw (h1), program ibv_devinfo (h1)');
  assert.deepEqual(filesBeside(parseTopology(twoHostPod('q'))), []);
});
