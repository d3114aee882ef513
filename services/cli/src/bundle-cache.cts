/**
 * Runs a one-file bundle (`scripts/bundle-members.mjs`) from V8's code cache and returns its
 * `module.exports`. Compiling a bundle of ≈ 1 MB, and then each function it calls, is most of a
 * member's start-up (26 members of the default pod do it on two cores) and ≈ 70 ms of an inproc
 * run's. The first process to run a bundle leaves, when it exits, the code V8 compiled for it in
 * `BUNDLE.<digest>.v8cache`; the next ones start from that instead (the perf pod reaches its first
 * lease ≈ 0.7 s sooner).
 *
 * The cache is named by the bundle's content digest, because V8 checks a cache only against the
 * source's length: a rebuilt bundle of the same length must never run old code. V8 refuses a
 * cache made by another Node or with other flags, and the bundle is then compiled as usual and a
 * new cache written. The cache is only ever a speed-up: a directory it cannot be written to costs
 * nothing but the time.
 *
 * CommonJS, because only a classic script can be compiled from a code cache without
 * experimental flags (`vm.Script`); the bundles are CommonJS for the same reason.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- TypeScript's only import form for a CommonJS file under verbatimModuleSyntax */
import crypto = require('node:crypto');
import fs = require('node:fs');
import nodeModule = require('node:module');
import path = require('node:path');
import vm = require('node:vm');

function runBundle(bundle: string): unknown {
  const file = path.resolve(bundle);
  const source = fs.readFileSync(file, 'utf8');
  const digest = crypto.createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cacheFile = `${file}.${digest}.v8cache`;
  const cachedData = readIfThere(cacheFile);
  const script = new vm.Script(nodeModule.wrap(source), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected === true) process.once('exit', () => writeCache(script, file, cacheFile));
  const bundleModule = { exports: {} };
  const compiled = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  compiled.call(bundleModule.exports, bundleModule.exports, nodeModule.createRequire(file), bundleModule, file, path.dirname(file));
  return bundleModule.exports;
}

function readIfThere(cache: string): Buffer | undefined {
  try {
    return fs.readFileSync(cache);
  } catch {
    return undefined;
  }
}

/** Written whole under a temporary name, then renamed: members of one pod exit together. */
function writeCache(compiledScript: vm.Script, file: string, cache: string): void {
  const temporary = `${cache}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, compiledScript.createCachedData());
    fs.renameSync(temporary, cache);
    // Caches of earlier builds of this bundle are of no use any more.
    const base = path.basename(file);
    for (const name of fs.readdirSync(path.dirname(file))) {
      if (name.startsWith(`${base}.`) && name.endsWith('.v8cache') && name !== path.basename(cache)) fs.rmSync(path.join(path.dirname(file), name), { force: true });
    }
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

export = { runBundle };
