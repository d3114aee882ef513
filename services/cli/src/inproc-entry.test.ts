import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runInproc } from '@rocelab/runtime';
import { loadTopologyFile } from '@rocelab/topology';
import { bundleIsFresh } from './member-entries.js';
import { INPROC_BUNDLE, inprocRunner } from './inproc-entry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

test('rocelab run inproc runs from the fresh one-file bundle, with the result the modules give (hash, packets, completions)', async () => {
  assert.ok(bundleIsFresh(INPROC_BUNDLE), `${INPROC_BUNDLE} is built and fresh (npm run build)`);
  const { run, bundled } = await inprocRunner();
  assert.equal(bundled, true);
  assert.notEqual(run, runInproc, 'the bundle’s own copy of the runtime');
  const pod = loadTopologyFile(join(ROOT, 'test', 'fixtures', 'tree.yaml'));
  const options = { seed: 7, durationPs: 300_000_000 };
  const [fromBundle, fromModules] = [await run(pod, options), await runInproc(pod, options)];
  assert.equal(fromBundle.traceHash, fromModules.traceHash);
  assert.ok(fromBundle.packets.delivered > 1000, `traffic ran: ${fromBundle.packets.delivered} delivered`);
  assert.deepEqual(fromBundle.packets, fromModules.packets);
  assert.deepEqual(fromBundle.flows, fromModules.flows);
});
