#!/usr/bin/env node
/**
 * After `tsc -b` (and the precompiled validator): each member entry — the switch and host
 * services and the `--workers` worker — bundled into one file with esbuild, so that a member
 * process reads and compiles one file instead of resolving some 400 modules (26 processes of
 * the default pod start several times faster and hold less memory). Beside each bundle,
 * `<bundle>.inputs.json` lists the files it was made from: the CLI uses a bundle only while
 * none of them is newer (`member-entries.ts`), so a `tsc -b` without this step never runs
 * stale code.
 */
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = [
  ['services/switch/dist/main.js', 'services/switch/dist/switch.bundle.mjs'],
  ['services/host/dist/main.js', 'services/host/dist/host.bundle.mjs'],
  ['services/cli/dist/worker.js', 'services/cli/dist/worker.bundle.mjs'],
];

/**
 * Left out of the bundles and loaded from where the build put them, by a path relative to the
 * bundle, only if a member ever needs them: the topology schema's precompiled validator and
 * ajv (with the resolved pod as JSON, a local member validates nothing). Half the bundle's bytes,
 * which every member would otherwise parse at start.
 */
const onDemand = (outDir) => ({
  name: 'on-demand',
  setup(b) {
    b.onResolve({ filter: /^(ajv|\.\/topology-validator\.cjs)$/ }, (args) => {
      const path = createRequire(join(args.resolveDir, 'x.js')).resolve(args.path);
      return { path: `./${relative(outDir, path)}`, external: true };
    });
  },
});

for (const [entry, out] of ENTRIES) {
  const result = await build({
    plugins: [onDemand(dirname(join(ROOT, out)))],
    minifyWhitespace: true,
    minifySyntax: true,
    entryPoints: [join(ROOT, entry)],
    outfile: join(ROOT, out),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS dependencies (ws, protobufjs, pino, prom-client) call require(); an ES module has none.
    banner: { js: "import { createRequire as __rocelabRequire } from 'node:module'; const require = __rocelabRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => relative(dirname(join(ROOT, out)), resolve(ROOT, p)));
  writeFileSync(`${join(ROOT, out)}.inputs.json`, `${JSON.stringify(inputs)}\n`);
  process.stderr.write(`bundle-members: ${out} (${inputs.length} files)\n`);
}
