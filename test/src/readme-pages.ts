/**
 * What a newcomer reads: the README and the docs/ guides it links to. The README keeps its first
 * screen (what rocelab is, the two commands, the folder table) and links a guide per topic (issue
 * 23); the tests that hold the README's claims to the code read them here, where they now live.
 * A guide is a page that says so in its first lines ("This page goes with the [README]") and
 * counts only while the README links it, so a claim cannot drift into an unlinked page. The
 * reference pages the README also links (design, physics, style, errors) are not guides: they
 * name other projects' files (SONiC's docs/…) that are no part of this repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.js';

export interface ReadmePage {
  /** Relative to the repository root: `README.md`, `docs/drills.md`. */
  path: string;
  text: string;
}

const GUIDE = 'This page goes with the [README](../README.md).';

/** The README, then every guide it links to, in the order it links them. */
export function readmePages(): ReadmePage[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const linked = [...new Set([...readme.matchAll(/\]\((docs\/[\w.-]+\.md)\)/g)].map((m) => m[1]!))];
  const guides = linked.map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') })).filter((p) => p.text.split('\n', 4).includes(GUIDE));
  return [{ path: 'README.md', text: readme }, ...guides];
}

/** The README and its guides as one text (pages separated by a blank line). */
export function readmeText(): string {
  return readmePages()
    .map((p) => p.text)
    .join('\n\n');
}
