/**
 * Workspace rules (STYLE §13, §14; DESIGN §2): TypeScript project references mirror the declared
 * package dependencies, no package imports a service, and the pure model packages import only
 * pure packages. These read the repository's files, so they hold for the tree as checked out.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** This file runs as test/dist/workspace.test.js: the repository root is two levels up. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** DESIGN §2: the pure packages (no sockets, timers, clocks, fs or logging). */
const PURE = ['wire', 'sim', 'sync', 'switch', 'rnic', 'workload'].map((p) => `@rocelab/${p}`);
/** The only Node built-in a pure package's code may import (SHA-256 seeds the random streams). */
const PURE_BUILTINS = new Set(['node:crypto']);
/** Third-party modules that do I/O, logging or metrics (eslint.config.js bans them in pure packages too). */
const IO_MODULES = new Set(['ws', 'prom-client', 'pino', 'dockerode', 'testcontainers']);
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

interface PackageJson {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface Workspace {
  /** Relative to the root, e.g. `packages/sim`. */
  dir: string;
  name: string;
  pkg: PackageJson;
}

const rel = (path: string): string => relative(ROOT, path).split('\\').join('/');
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/**
 * tsconfig files are JSONC: drop comments (outside strings) and trailing commas, then parse.
 * Strings are copied verbatim, so a path such as "a//b" or "/*" inside quotes survives.
 */
function readJsonc(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** Directories holding a package.json under `packages/*`, `services/*`, and `test`, `bench`. */
function workspaceDirs(): string[] {
  const dirs = ['packages', 'services'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .filter((name) => existsSync(join(ROOT, group, name, 'package.json')))
      .map((name) => `${group}/${name}`),
  );
  for (const extra of ['test', 'bench']) if (existsSync(join(ROOT, extra, 'package.json'))) dirs.push(extra);
  return dirs.sort();
}

const WORKSPACES: Workspace[] = workspaceDirs().map((dir) => {
  const pkg = readJson(join(ROOT, dir, 'package.json')) as PackageJson;
  assert.ok(typeof pkg.name === 'string', `${dir}/package.json has a name`);
  return { dir, name: pkg.name, pkg };
});
const BY_NAME = new Map(WORKSPACES.map((w) => [w.name, w]));
/** Service packages: every workspace under services/, plus the naming rule for future ones. */
const SERVICE_NAMES = new Set(WORKSPACES.filter((w) => w.dir.startsWith('services/')).map((w) => w.name));
const isService = (name: string): boolean =>
  SERVICE_NAMES.has(name) || name === '@rocelab/controller' || name === '@rocelab/cli' || /^@rocelab\/[^/]+-service$/.test(name);

/** Every `@rocelab/*` package a workspace declares, in any dependency field. */
function declaredRocelab(pkg: PackageJson): string[] {
  const names = new Set<string>();
  for (const field of DEPENDENCY_FIELDS) for (const name of Object.keys(pkg[field] ?? {})) if (name.startsWith('@rocelab/')) names.add(name);
  return [...names].sort();
}

/** The directories (relative to the root) a workspace's tsconfig.json references. */
function referencedDirs(w: Workspace): string[] {
  const config = readJsonc(join(ROOT, w.dir, 'tsconfig.json')) as { references?: Array<{ path: string }> };
  return (config.references ?? [])
    .map((ref) => {
      const target = resolve(ROOT, w.dir, ref.path);
      return rel(target.endsWith('.json') ? dirname(target) : target);
    })
    .sort();
}

/** Every .ts file under `dir` (recursively). */
function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Source text with comments blanked out (strings and template literals kept as they are). */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && !(c !== '`' && text[j] === '\n')) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const IMPORT_PATTERNS = [
  // import x from 'm'; import type { X } from 'm'; export { x } from 'm'; export * from 'm'
  /(?:^|[;\n}])\s*(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g,
  // import 'm' (side effects)
  /(?:^|[;\n}])\s*import\s*(['"])([^'"]+)\1/g,
  // import('m'), require('m')
  /\b(?:import|require)\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
];

/** The module specifiers a TypeScript file imports, re-exports or requires. */
function importsOf(path: string): string[] {
  const text = withoutComments(readFileSync(path, 'utf8'));
  const found = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) for (const m of text.matchAll(pattern)) found.add(m[2]!);
  return [...found];
}

/** `@rocelab/sim/testing` → `@rocelab/sim`; `protobufjs/minimal.js` → `protobufjs`; relative → null. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);
const isTestFile = (path: string): boolean => /\.test\.ts$/.test(path) || /(^|\/)testing\.ts$/.test(path);

/** Each import of the workspaces in `dirs`, as "file: specifier" pairs. */
function importsUnder(dirs: readonly string[]): Array<{ file: string; specifier: string }> {
  return dirs.flatMap((dir) => tsFiles(join(ROOT, dir, 'src')).flatMap((file) => importsOf(file).map((specifier) => ({ file: rel(file), specifier }))));
}

test('the import scanner finds static, type-only, re-export, side-effect and dynamic imports, and ignores comments and strings', () => {
  // Guards the rules below: a scanner that found nothing would let every rule pass.
  const sample = withoutComments(`import a from 'a';\nimport type { B } from "b";\nexport * from './c.js';\nimport 'd';\nconst e = await import('e');\n// import x from 'not-me';\n/* import y from 'nor-me'; */\nconst s = "from 'nope'";\nexport { f } from '@rocelab/f/sub';\n`);
  const found = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) for (const m of sample.matchAll(pattern)) found.add(m[2]!);
  assert.deepEqual([...found].sort(), ['./c.js', '@rocelab/f/sub', 'a', 'b', 'd', 'e']);
  assert.equal(packageOf('@rocelab/f/sub'), '@rocelab/f');
  // And on the real tree: sim imports wire, and the runtime imports services' building blocks.
  assert.ok(importsUnder(['packages/sim']).some((i) => i.specifier === '@rocelab/wire'));
  assert.ok(importsUnder(['packages/runtime']).some((i) => i.specifier === '@rocelab/telemetry'));
});

test('the root package.json lists exactly the workspaces found under packages/*, services/*, test and bench', () => {
  const root = readJson(join(ROOT, 'package.json')) as PackageJson;
  assert.deepEqual([...(root.workspaces ?? [])].sort(), WORKSPACES.map((w) => w.dir));
  assert.ok(WORKSPACES.length >= 10, `found ${WORKSPACES.length} workspaces`);
});

test('the root tsconfig.json references every workspace, so `tsc -b` builds them all', () => {
  const root = readJsonc(join(ROOT, 'tsconfig.json')) as { references?: Array<{ path: string }> };
  const dirs = (root.references ?? []).map((r) => rel(resolve(ROOT, r.path))).sort();
  assert.deepEqual(dirs, WORKSPACES.map((w) => w.dir));
});

for (const w of WORKSPACES) {
  test(`${w.dir}: tsconfig references = its declared @rocelab/* dependencies`, () => {
    const declared = declaredRocelab(w.pkg);
    const unknown = declared.filter((name) => !BY_NAME.has(name));
    assert.deepEqual(unknown, [], `${w.dir}/package.json declares @rocelab packages that are no workspace`);
    const expected = declared.map((name) => BY_NAME.get(name)!.dir).sort();
    assert.deepEqual(
      referencedDirs(w),
      expected,
      `${w.dir}/tsconfig.json references (actual) must equal the dirs of ${w.dir}/package.json's @rocelab dependencies (expected)`,
    );
  });
}

test('every @rocelab/* package a workspace imports is one it declares (no undeclared workspace imports)', () => {
  const problems: string[] = [];
  for (const w of WORKSPACES) {
    const declared = new Set([...declaredRocelab(w.pkg), w.name]);
    for (const { file, specifier } of importsUnder([w.dir])) {
      const pkg = packageOf(specifier);
      if (pkg !== null && pkg.startsWith('@rocelab/') && !declared.has(pkg)) problems.push(`${file} imports ${specifier}, not declared in ${w.dir}/package.json`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no file under packages/*/src imports a service package (@rocelab/controller, @rocelab/cli, @rocelab/*-service)', () => {
  assert.ok(SERVICE_NAMES.has('@rocelab/controller') && SERVICE_NAMES.has('@rocelab/cli'), 'services are known by name');
  const packages = WORKSPACES.filter((w) => w.dir.startsWith('packages/'));
  const problems = importsUnder(packages.map((w) => w.dir))
    .filter(({ specifier }) => {
      const pkg = packageOf(specifier);
      return pkg !== null && isService(pkg);
    })
    .map(({ file, specifier }) => `${file} imports the service ${specifier}`);
  assert.deepEqual(problems, []);
  // The declarations agree: no package lists a service as a dependency.
  for (const w of packages) assert.deepEqual(declaredRocelab(w.pkg).filter(isService), [], `${w.dir}/package.json depends on a service`);
});

test('pure packages (wire, sim, sync, switch, rnic, workload) import only pure @rocelab packages, and of Node only node:crypto', () => {
  const pure = PURE.map((name) => BY_NAME.get(name));
  assert.ok(
    pure.every((w) => w !== undefined),
    'every pure package is a workspace',
  );
  const problems: string[] = [];
  for (const w of pure as Workspace[]) {
    for (const dep of declaredRocelab(w.pkg)) if (!PURE.includes(dep)) problems.push(`${w.dir}/package.json depends on the impure ${dep}`);
    for (const { file, specifier } of importsUnder([w.dir])) {
      const pkg = packageOf(specifier);
      if (pkg === null) continue;
      if (pkg.startsWith('@rocelab/') && !PURE.includes(pkg)) problems.push(`${file} imports the impure ${specifier}`);
      if (IO_MODULES.has(pkg)) problems.push(`${file} imports the I/O module ${specifier}`);
      // Tests may use node:test and node:assert; the lint rule (STYLE §14) also exempts them.
      if (isBuiltin(specifier) && !isTestFile(file) && !PURE_BUILTINS.has(specifier)) problems.push(`${file} imports the Node built-in ${specifier}`);
    }
  }
  assert.deepEqual(problems, []);
});
