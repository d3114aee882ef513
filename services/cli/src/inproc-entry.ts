/**
 * Where `rocelab run` takes `runInproc` from: the one-file bundle `scripts/bundle-members.mjs`
 * makes (`inproc.bundle.cjs`), while it is fresh, else the runtime's modules. The same code in
 * one file runs the perf pod in ≈ 0.84 of the wall time (issue 27): calls between what were
 * modules become calls between functions of one scope. It runs from V8's code cache
 * (`bundle-cache.cts`), as members do. What crosses over is plain data (the pod,
 * options, the result) and the progress callback; errors are plain `Error`s either way.
 */
import { fileURLToPath } from 'node:url';
import type { runInproc as RunInproc, runThreads as RunThreads, ThreadEntry } from '@rocelab/runtime';
import bundleCache from './bundle-cache.cjs';
import { bundleIsFresh } from './member-entries.js';

export const INPROC_BUNDLE = fileURLToPath(new URL('./inproc.bundle.cjs', import.meta.url));

let chosen: { run: typeof RunInproc; bundled: boolean } | null = null;

/** `runInproc`, from the bundle when it is fresh (decided once per process). */
export async function inprocRunner(): Promise<{ run: typeof RunInproc; bundled: boolean }> {
  if (chosen === null) {
    if (bundleIsFresh(INPROC_BUNDLE)) {
      const bundle = bundleCache.runBundle(INPROC_BUNDLE) as { runInproc: typeof RunInproc };
      chosen = { run: bundle.runInproc, bundled: true };
    } else {
      chosen = { run: (await import('@rocelab/runtime')).runInproc, bundled: false };
    }
  }
  return chosen;
}

/**
 * `runThreads`, and what its threads run: the bundle's `threadMain` (from the code cache, as
 * here) when the bundle is fresh, else the runtime's modules.
 */
export async function threadsRunner(): Promise<{ run: typeof RunThreads; threadEntry?: ThreadEntry }> {
  if (bundleIsFresh(INPROC_BUNDLE)) {
    const bundle = bundleCache.runBundle(INPROC_BUNDLE) as { runThreads: typeof RunThreads };
    const loader = fileURLToPath(new URL('./bundle-cache.cjs', import.meta.url));
    return { run: bundle.runThreads, threadEntry: { code: `require(${JSON.stringify(loader)}).runBundle(${JSON.stringify(INPROC_BUNDLE)}).threadMain();` } };
  }
  return { run: (await import('@rocelab/runtime')).runThreads };
}
