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
import ts from 'typescript';

/** This file runs as test/dist/workspace.test.js: the repository root is two levels up. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** DESIGN §2: the pure packages (no sockets, timers, clocks, fs or logging). */
const PURE = ['wire', 'sim', 'sync', 'switch', 'rnic', 'host', 'workload', 'results'].map((p) => `@rocelab/${p}`);
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

/** A tsconfig file (JSONC: comments and trailing commas allowed), parsed as `tsc` parses it. */
function readTsconfig(path: string): { references?: Array<{ path: string }> } {
  const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
  assert.equal(error, undefined, `${rel(path)}: ${error === undefined ? '' : ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  return config as { references?: Array<{ path: string }> };
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
  const config = readTsconfig(join(ROOT, w.dir, 'tsconfig.json'));
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

/**
 * The module specifiers a TypeScript file imports: static, type-only, re-exports, side-effect,
 * `import x = require()`, dynamic `import()` and `require()`. TypeScript's own pre-processor
 * scans them, so comments, strings, template literals and regular expressions never fool it.
 */
function importsOf(text: string): string[] {
  return [...new Set(ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName))];
}

/** `@rocelab/sim/testing` → `@rocelab/sim`; `protobufjs/minimal.js` → `protobufjs`; relative → null. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);
const isTestFile = (path: string): boolean => path.endsWith('.test.ts');

/** Each import of the workspaces in `dirs`, as "file: specifier" pairs. */
function importsUnder(dirs: readonly string[]): Array<{ file: string; specifier: string }> {
  return dirs.flatMap((dir) => tsFiles(join(ROOT, dir, 'src')).flatMap((file) => importsOf(readFileSync(file, 'utf8')).map((specifier) => ({ file: rel(file), specifier }))));
}

test('the import scanner finds static, type-only, re-export, side-effect and dynamic imports, and ignores comments and strings', () => {
  // Guards the rules below: a scanner that found nothing would let every rule pass.
  const sample = [
    "import a from 'a';",
    'import type { B } from "b";',
    "export * from './c.js';",
    "import 'd';",
    "const e = await import('e');",
    "// import x from 'not-me';",
    "/* import y from 'nor-me'; */",
    'const s = "import z from \'nope\'"; const r = /[\'"]/g;',
    "export { f } from '@rocelab/f/sub';",
    "const g = require('g');",
  ].join('\n');
  assert.deepEqual(importsOf(sample).sort(), ['./c.js', '@rocelab/f/sub', 'a', 'b', 'd', 'e', 'g']);
  assert.equal(packageOf('@rocelab/f/sub'), '@rocelab/f');
  // And on the real tree: sim imports wire, the runtime imports telemetry.
  assert.ok(importsUnder(['packages/sim']).some((i) => i.specifier === '@rocelab/wire'));
  assert.ok(importsUnder(['packages/runtime']).some((i) => i.specifier === '@rocelab/telemetry'));
});

test('the root package.json lists exactly the workspaces found under packages/*, services/*, test and bench', () => {
  const root = readJson(join(ROOT, 'package.json')) as PackageJson;
  assert.deepEqual([...(root.workspaces ?? [])].sort(), WORKSPACES.map((w) => w.dir));
  assert.ok(WORKSPACES.length >= 10, `found ${WORKSPACES.length} workspaces`);
});

test('the root tsconfig.json references every workspace, so `tsc -b` builds them all', () => {
  const root = readTsconfig(join(ROOT, 'tsconfig.json'));
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

test('pure packages (wire, sim, sync, switch, rnic, host, workload, results) import only pure @rocelab packages, and of Node only node:crypto', () => {
  const pure = PURE.map((name) => BY_NAME.get(name));
  assert.ok(
    pure.every((w) => w !== undefined),
    'every pure package is a workspace',
  );
  const problems: string[] = [];
  for (const w of pure) {
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

test("CI runs exactly the README's test command, and the README's first block holds the two newcomer commands", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  assert.deepEqual(block, ['npm ci && npm start', 'npm test']);
  const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8').split('\n');
  assert.ok(ci.includes(block[1]!), `.ci/run must run \`${block[1]}\` as its own line`);
});
