/**
 * The program a member process runs: the switch or host service, or the worker of `--workers
 * K`. Each is preferably its one-file bundle (`scripts/bundle-members.mjs`), run from V8's code
 * cache by `member-loader.cjs`, which starts several times faster than the same code as
 * separate modules; a bundle is used only while no file it was made from is newer than it, so
 * code rebuilt without bundling never runs stale.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemberEntry } from '@rocelab/topology';

const PLAIN: Record<MemberEntry, () => string> = {
  switch: () => fileURLToPath(import.meta.resolve('@rocelab/switch-service')),
  host: () => fileURLToPath(import.meta.resolve('@rocelab/host-service')),
  worker: () => fileURLToPath(new URL('./worker.js', import.meta.url)),
};

const BUNDLE: Record<MemberEntry, string> = { switch: 'switch.bundle.cjs', host: 'host.bundle.cjs', worker: 'worker.bundle.cjs' };

const LOADER = fileURLToPath(new URL('./member-loader.cjs', import.meta.url));

const chosen = new Map<MemberEntry, readonly string[]>();

/** The arguments Node runs a member of this kind with (decided once per process): the loader and the bundle, or the plain entry. */
export function memberEntry(entry: MemberEntry): readonly string[] {
  let args = chosen.get(entry);
  if (args === undefined) {
    const plain = PLAIN[entry]();
    const bundle = resolve(dirname(plain), BUNDLE[entry]);
    args = bundleIsFresh(bundle) ? [LOADER, bundle] : [plain];
    chosen.set(entry, args);
  }
  return args;
}

/** The bundle exists and is at least as new as every file listed in its `.inputs.json`. */
export function bundleIsFresh(bundle: string): boolean {
  const list = `${bundle}.inputs.json`;
  if (!existsSync(bundle) || !existsSync(list)) return false;
  try {
    const madeMs = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(list, 'utf8')) as string[];
    return inputs.every((input) => statSync(resolve(dirname(bundle), input)).mtimeMs <= madeMs);
  } catch {
    return false; // an input gone (a cleaned build): not this bundle's world any more
  }
}
