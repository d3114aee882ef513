#!/usr/bin/env node
/**
 * After `tsc -b` (and the precompiled validator): each member entry — the switch and host
 * services and the `--workers` worker — and the CLI's inproc run bundled into one file with esbuild, so that a member
 * process reads and compiles one file instead of resolving some 400 modules (26 processes of
 * the default pod start several times faster and hold less memory). Beside each bundle,
 * `<bundle>.inputs.json` lists the files it was made from: the CLI uses a bundle only while
 * none of them is newer (`member-entries.ts`), so a `tsc -b` without this step never runs
 * stale code. The bundles are CommonJS so that `member-loader.cjs` can run them from V8's code
 * cache; the entries' top-level `await` becomes a plain call (a failure still ends the process).
 */
import { build } from 'esbuild';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** A member's entry: run the member main for `role` (the role it checks its nodes against). */
const member = (role) => [`${role}-member.js`, `import { runMemberMain } from '@rocelab/runtime';\nvoid runMemberMain('${role}');\n`];
/** Each bundle, its entry's name and its code. */
const ENTRIES = [
  ['services/switch/dist/switch.bundle.cjs', ...member('switch')],
  ['services/host/dist/host.bundle.cjs', ...member('host')],
  ['services/cli/dist/worker.bundle.cjs', ...member('any')],
  // The CLI's inproc run (`inproc-entry.ts`): one engine in one file runs at ≈ 0.84 of the wall time
  // the same code takes as separate ES modules (issue 27, measured on the perf pod).
  // `--threads K` too: this thread's `runThreads`, and each worker thread's `threadMain`.
  ['services/cli/dist/inproc.bundle.cjs', 'inproc.js', "export { runInproc, runThreads, threadMain } from '@rocelab/runtime';\n"],
];

/**
 * Left out of the bundles and loaded from where the build put them, by a path relative to the
 * bundle, only if a member ever needs them: the precompiled validators (topology-validator.cjs,
 * schema-validators.cjs) and ajv (with the resolved pod as JSON, a local member validates
 * nothing). Half the bundle's bytes, which every member would otherwise parse at start.
 */
const onDemand = (outDir) => ({
  name: 'on-demand',
  setup(b) {
    b.onResolve({ filter: /^(ajv|\.\/topology-validator\.cjs|\.\/schema-validators\.cjs)$/ }, (args) => {
      const path = createRequire(join(args.resolveDir, 'x.js')).resolve(args.path);
      return { path: `./${relative(outDir, path)}`, external: true };
    });
  },
});

for (const [out, entry, contents] of ENTRIES) {
  const outDir = dirname(join(ROOT, out));
  // ES-module bundles of earlier builds are no longer run. (Code caches stay: each is named by the
  // digest of the bundle it was made from, and the loader removes those of other bundles.)
  for (const name of readdirSync(outDir)) if (/\.bundle\.mjs(\.inputs\.json)?$/.test(name)) rmSync(join(outDir, name), { force: true });
  const result = await build({
    absWorkingDir: ROOT,
    plugins: [onDemand(outDir)],
    // The apps' engine (QuickJS in WebAssembly) loads its .wasm beside its own files: members require it from node_modules.
    external: ['@jitl/*'],
    minifyWhitespace: true,
    minifySyntax: true,
    stdin: { contents, resolveDir: outDir, sourcefile: entry, loader: 'js' },
    outfile: join(ROOT, out),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // `createRequire(import.meta.url)` (the on-demand validator) resolves from the bundle's place.
    define: { 'import.meta.url': '__rocelabBundleUrl' },
    banner: { js: "const __rocelabBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((p) => resolve(ROOT, p) !== join(outDir, entry)) // the entry above, which lives in this script
    .map((p) => relative(outDir, resolve(ROOT, p)));
  writeFileSync(`${join(ROOT, out)}.inputs.json`, `${JSON.stringify(inputs)}\n`);
  process.stderr.write(`bundle-members: ${out} (${inputs.length} files)\n`);
}
