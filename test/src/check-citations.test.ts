/**
 * scripts/check-citations.mjs (issue 23): the reference pages are in the repository and every
 * citation of them resolves. Fed a small repository of its own, it passes the good one and names
 * each bad citation, outside reference, broken link and over-long line with its file and line;
 * the repository itself passes (npm test also runs the script before the tests).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './harness.js';

const SCRIPT = join(ROOT, 'scripts', 'check-citations.mjs');
/** Bad citations use \u00a7 for §, and these are spelled in pieces: this file is in the repository too, and the script rightly refuses them whole. */
const SHARED = '..' + '/shared';
const WORK_SHARED = '/work' + '/shared';
const UPPER = (name: string): string => `${name}.` + 'md';
const ANCHOR = (page: string, heading: string): string => `docs/${page}.md` + `#${heading}`;

const PAGES: Record<string, string> = {
  'docs/design.md': '# design\n\n## 2. Layout\n\ntext\n\n## 3. Virtual time\n\n**Faults are\nevents.** text\n\n## 4. Wire\n\n**Node loss.** text\n',
  'docs/physics.md': '# physics\n\n## 1. DCQCN\n\n### 1.3 Reaction point\n\n### 1.4 Vendor\n\n### 1.5 Paper\n\n## 7a. Test vectors\n',
  'docs/style.md': '# style\n\n## 2. Cores\n\n## 14. Lint\n',
  'docs/ARCHITECTURE.md': '# overview\n\nSee [sync](architecture/sync.md#windows-and-leases) and [design](design.md#3-virtual-time).\n',
  'docs/architecture/sync.md': '# sync\n\n## Windows and leases\n\nBack to [the overview](../ARCHITECTURE.md).\n',
  'src/a.ts': '// DESIGN §3, §2 and STYLE §14; PHYSICS §1.3–1.5 and PHYSICS §7a #4.\n// DESIGN §3 "faults are events", DESIGN §2, §3 "Faults are events"\nexport const a = 1;\n',
};

/** Writes PAGES plus `extra` into a fresh directory (not a git checkout: the script walks it) and runs the script there. */
function run(extra: Record<string, string>): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-citations-'));
  try {
    for (const [file, text] of Object.entries({ ...PAGES, ...extra })) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a repository whose citations, links and lines are all good passes', () => {
  const r = run({});
  assert.equal(r.status, 0, r.stderr);
});

test('a citation of a heading that does not exist fails, naming the file, the line and the citation', () => {
  const r = run({ 'src/b.ts': 'export const b = 2;\n// the lease rule (DESIGN \u00a75)\n' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/b\.ts:2: DESIGN \u00a75 cites no heading of docs\/design\.md/m);
});

test('a quoted paragraph lead must be in the cited section, not merely somewhere on the page', () => {
  const r = run({ 'src/g.ts': '// DESIGN \u00a73 "Node loss": wrong section\n// DESIGN \u00a74 "Node loss" is right\nexport const g = 7;\n' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^src\/g\.ts:1: DESIGN \u00a73 "Node loss": docs\/design\.md \u00a73 has no such text/m);
  assert.doesNotMatch(r.stderr, /src\/g\.ts:2/);
});

test('a list or range goes on citing the same page, and each of its numbers is checked', () => {
  const r = run({ 'test/c.yaml': '# PHYSICS \u00a71.3, \u00a71.9 and STYLE \u00a72 and \u00a75\nkey: 1\n' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /test\/c\.yaml:1: PHYSICS \u00a71\.9 cites no heading/);
  assert.match(r.stderr, /test\/c\.yaml:1: STYLE \u00a75 cites no heading/);
  assert.doesNotMatch(r.stderr, /\u00a71\.3 cites|STYLE \u00a72 cites/);
});

test('a reference to a document outside the repository fails, in any file', () => {
  const r = run({
    '.ci/run': `#!/bin/sh\n# from a clean clone (with ${SHARED} beside it)\n`,
    'docs/x.md': `# x\n\nThe target map is ${WORK_SHARED}/${UPPER('DESIGN')}.\n`,
    'src/d.ts': `// see shared/${UPPER('PHYSICS')}\nexport const d = 4;\n`,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^\.ci\/run:2: refers to \.\.\/shared/m);
  assert.match(r.stderr, /^docs\/x\.md:3: refers to \/work\/shared/m);
  assert.match(r.stderr, /^src\/d\.ts:1: refers to the shared reference pages/m);
});

test('a link to a missing page or a missing heading fails, in docs and in code comments', () => {
  const r = run({
    'docs/y.md': '# y\n\n[gone](architecture/rnic.md), [moved](ARCHITECTURE.md#the-rdma-nic), [out](../../etc/passwd)\n',
    'src/e.ts': `// ${ANCHOR('ARCHITECTURE', 'faults')} says why\nexport const e = 5;\n`,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /docs\/y\.md:3: link architecture\/rnic\.md: no file docs\/architecture\/rnic\.md/);
  assert.match(r.stderr, /docs\/y\.md:3: link ARCHITECTURE\.md#the-rdma-nic: docs\/ARCHITECTURE\.md has no heading #the-rdma-nic/);
  assert.match(r.stderr, /docs\/y\.md:3: link \.\.\/\.\.\/etc\/passwd leaves the repository/);
  assert.match(r.stderr, /src\/e\.ts:1: docs\/ARCHITECTURE\.md has no heading #faults/);
});

test('a documentation line longer than a paragraph fails; a code line of that length does not', () => {
  const long = 'word '.repeat(170); // 850 characters
  const r = run({ 'README.md': `# r\n\n${long}\n`, 'src/f.ts': `// ${long}\nexport const f = 6;\n` });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^README\.md:3: line of 850 characters \(at most 800/m);
  assert.doesNotMatch(r.stderr, /src\/f\.ts/);
});

test('the repository itself passes', () => {
  const r = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
