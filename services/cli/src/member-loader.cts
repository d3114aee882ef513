/**
 * Runs a member bundle (`scripts/bundle-members.mjs`) from V8's code cache: `node
 * member-loader.cjs BUNDLE` (`bundle-cache.cts` says how the cache is kept).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- TypeScript's only import form for a CommonJS file under verbatimModuleSyntax */
import bundleCache = require('./bundle-cache.cjs');

const bundle = process.argv[2];
if (bundle === undefined) {
  process.stderr.write('member-loader: expected the path of a member bundle, e.g. node member-loader.cjs switch.bundle.cjs\n');
  process.exit(2);
}
bundleCache.runBundle(bundle);
