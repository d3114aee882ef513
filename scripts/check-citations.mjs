#!/usr/bin/env node
// The blueprints are inside the repository (issue 23): every citation of the reference pages
// resolves to a heading there, no file points at a document outside the repository, every
// Markdown link between the repository's pages lands on a file (and a heading, when it names
// one), and no line of the documentation is longer than a paragraph. `npm test` runs it before
// the tests; test/src/check-citations.test.ts feeds it bad files and sees it fail.
//
//   node scripts/check-citations.mjs [ROOT]
//
// Citations (docs/style.md, "Citing the reference pages"): `DESIGN §n` is the heading numbered n
// of docs/design.md, `PHYSICS §n` of docs/physics.md and `STYLE §n` of docs/style.md. A list or
// range goes on citing the same page: `PHYSICS §2.3, §4.6`, `DESIGN §3 and §8`, `PHYSICS §1.3–1.5`;
// a quoted paragraph lead after the number (`DESIGN §3 "Faults are events"`) must be in that section.
// Exits 1 with one line per problem (`file:line: what, and what was expected`), 0 when all is well.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';

/** The longest line a documentation page may have: a long paragraph, not a chapter on one line. */
export const MAX_DOC_LINE = 800;
/** A Markdown table row cannot be broken; the longest today (docs/errors.md) is 1,533. */
export const MAX_TABLE_ROW = 1600;

const PAGES = { DESIGN: 'docs/design.md', PHYSICS: 'docs/physics.md', STYLE: 'docs/style.md' };
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', '.rocelab', '.image']);
const MAX_FILE_BYTES = 2_000_000;

const NUM = String.raw`\d+[a-z]?(?:\.\d+)*`;
const CITATION = new RegExp(String.raw`\b(DESIGN|PHYSICS|STYLE) §(${NUM})((?:(?:,|,? and|,? or|–|-|—)\s*§?${NUM})*)`, 'g');
const CONTINUATION = new RegExp(String.raw`(?:,|,? and|,? or|(–|-|—))\s*§?(${NUM})`, 'g');
/** Documents outside the repository: the shared folder beside a checkout, and the old upper-case names. */
const OUTSIDE = [
  [/\.\.\/shared\b/, '../shared (outside the repository)'],
  [/\/work\/shared\b/, '/work/shared (outside the repository)'],
  [/\bshared\/(?:DESIGN|PHYSICS|STYLE)\b/, 'the shared reference pages (outside the repository)'],
  [/\b(?:DESIGN|PHYSICS|STYLE)\.md\b/, 'an upper-case reference page that is not in the repository (the pages are docs/design.md, docs/physics.md, docs/style.md)'],
];

/** Files to check: git's list (tracked and untracked, not ignored) in a checkout, else a walk. */
function listFiles(root) {
  try {
    const out = execFileSync('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return out.split('\0').filter((f) => f !== '' && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
  } catch {
    const files = [];
    const walk = (dir) => {
      for (const name of readdirSync(join(root, dir))) {
        const rel = dir === '' ? name : `${dir}/${name}`;
        if (statSync(join(root, rel)).isDirectory()) {
          if (!SKIP_DIRS.has(name)) walk(rel);
        } else files.push(rel);
      }
    };
    walk('');
    return files;
  }
}

function readText(root, file) {
  const path = join(root, file);
  if (statSync(path).size > MAX_FILE_BYTES) return null;
  const buf = readFileSync(path);
  if (buf.includes(0)) return null; // binary
  return buf.toString('utf8');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The headings of a Markdown page (outside code fences), with their anchors and section numbers. */
function headingsOf(text) {
  const anchors = new Set();
  const numbers = new Set();
  /** Section number → its text up to the next heading of the same or a higher level, whitespace folded, lower case. */
  const sections = new Map();
  const open = []; // [number, level, lines]
  const seen = new Map();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) {
      for (const o of open) o[2].push(line);
      continue;
    }
    const level = m[1].length;
    while (open.length > 0 && open[open.length - 1][1] >= level) {
      const [n, , lines] = open.pop();
      sections.set(n, fold(lines.join(' ')));
    }
    const base = slug(m[2]);
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    anchors.add(k === 0 ? base : `${base}-${k}`);
    const num = new RegExp(String.raw`^(?:§\s*)?(${NUM})\.?(?:\s|$)`).exec(m[2]);
    if (num) {
      numbers.add(num[1]);
      open.push([num[1], level, [m[2]]]);
    }
  }
  for (const [n, , lines] of open) sections.set(n, fold(lines.join(' ')));
  return { anchors, numbers, sections };
}

/** Text compared for a quoted paragraph lead: whitespace folded, Markdown emphasis dropped, lower case. */
function fold(text) {
  return text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').toLowerCase();
}

export function check(root) {
  const problems = [];
  const files = listFiles(root);
  const texts = new Map();
  for (const f of files) {
    const t = readText(root, f);
    if (t !== null) texts.set(f, t);
  }
  const headingCache = new Map();
  const headings = (file) => {
    if (!headingCache.has(file)) headingCache.set(file, texts.has(file) ? headingsOf(texts.get(file)) : null);
    return headingCache.get(file);
  };
  const self = relative(root, new URL(import.meta.url).pathname);

  for (const [file, text] of texts) {
    const lines = text.split('\n');
    const isDoc = file.endsWith('.md');
    const checkLength = file === 'README.md' || (file.startsWith('docs/') && isDoc);
    lines.forEach((line, i) => {
      const at = `${file}:${i + 1}`;
      // 1. Citations of the reference pages.
      for (const m of line.matchAll(CITATION)) {
        const page = PAGES[m[1]];
        const h = headings(page);
        if (h === null) {
          problems.push(`${at}: ${m[1]} §${m[2]} cites ${page}, which is not in the repository`);
          continue;
        }
        const cited = [m[2]];
        let prev = m[2];
        for (const c of m[3].matchAll(CONTINUATION)) {
          if (c[1] !== undefined && !c[2].includes('.') && prev.includes('.')) {
            // `§1.3–5` is not a form we use; `§1.3–1.5` is.
            problems.push(`${at}: ${m[1]} §${prev}${c[0]}: write a range with full numbers (§1.3–1.5)`);
          }
          cited.push(c[2]);
          prev = c[2];
        }
        for (const n of cited) {
          if (!h.numbers.has(n)) problems.push(`${at}: ${m[1]} §${n} cites no heading of ${page} (expected a heading numbered ${n}: "## ${n}. …" or "### ${n} …")`);
        }
        // `DESIGN §3 "Faults are events"`: the quoted paragraph lead is in that section.
        const quoted = /^\s*"([^"]+)"/.exec(line.slice(m.index + m[0].length));
        const last = cited[cited.length - 1];
        if (quoted && h.numbers.has(last) && !h.sections.get(last).includes(fold(quoted[1]))) {
          problems.push(`${at}: ${m[1]} §${last} "${quoted[1]}": ${page} §${last} has no such text (expected it in the section, e.g. as a paragraph's bold lead)`);
        }
      }
      // 2. Documents outside the repository. This script names the patterns it refuses.
      if (file !== self) {
        for (const [re, what] of OUTSIDE) if (re.test(line)) problems.push(`${at}: refers to ${what}; cite the page in docs/ instead`);
      }
      // 3. Markdown links to the repository's own files, and the headings they name.
      if (isDoc) {
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1];
          if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // a URL
          const [pathPart, anchor] = target.split('#');
          const dest = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
          if (dest.startsWith('..') || resolve(root, dest) !== join(root, dest)) {
            problems.push(`${at}: link ${target} leaves the repository`);
            continue;
          }
          if (!existsSync(join(root, dest))) {
            problems.push(`${at}: link ${target}: no file ${dest}`);
            continue;
          }
          if (anchor !== undefined && anchor !== '' && dest.endsWith('.md')) {
            const h = headings(dest);
            if (h !== null && !h.anchors.has(anchor)) problems.push(`${at}: link ${target}: ${dest} has no heading #${anchor}`);
          }
        }
      }
      // 4. No line of the documentation longer than a paragraph.
      const length = [...line].length;
      const row = line.startsWith('|');
      if (checkLength && length > (row ? MAX_TABLE_ROW : MAX_DOC_LINE)) {
        problems.push(
          row
            ? `${at}: table row of ${length} characters (at most ${MAX_TABLE_ROW}: shorten its cells or move the detail below the table)`
            : `${at}: line of ${length} characters (at most ${MAX_DOC_LINE}: break it into paragraphs or list items)`,
        );
      }
    });
    // Code and comments that name a heading of a page by anchor: `docs/<page>.md#<heading>`.
    if (!isDoc) {
      for (const m of text.matchAll(/\b(docs\/[\w./-]+\.md)#([\w-]+)/g)) {
        const h = headings(m[1]);
        const line = text.slice(0, m.index).split('\n').length;
        if (h === null) problems.push(`${file}:${line}: ${m[1]} is not in the repository`);
        else if (!h.anchors.has(m[2])) problems.push(`${file}:${line}: ${m[1]} has no heading #${m[2]}`);
      }
    }
  }
  return { problems, files: texts.size };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  const root = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'));
  const { problems, files } = check(root);
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    console.error(`check-citations: ${problems.length} problem(s) in ${files} files`);
    process.exit(1);
  }
  console.error(`check-citations: ${files} files, every citation and link resolves inside the repository`);
}
