/**
 * An app module as the sandbox runs it: the module and its own imports bundled into one script
 * (esbuild; TypeScript is stripped) that leaves the module's exports in `__app`. A TypeScript app
 * is first type-checked against the published declaration (`rocelab/app`, api.ts). Bundling and
 * type-checking read the app's files; nothing of the app runs here (machine.ts runs it).
 *
 * This runs where the topology file is loaded (the CLI, a container member), never on a local
 * member: the resolved pod carries the bundled source. esbuild and TypeScript are loaded only here.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TS from 'typescript';
import type * as Esbuild from 'esbuild';

export interface BundledApp {
  /** The module as the topology names it. */
  module: string;
  /** The script the sandbox evaluates: it leaves the module's exports in the global `__app`. */
  source: string;
  /** sha256 of `source`, hex. */
  digest: string;
}

/** A module that cannot be run: what is wrong, where (file:line:col) when known. */
export class AppModuleError extends Error {
  constructor(
    readonly module: string,
    readonly problems: readonly string[],
  ) {
    super(`app ${module}: ${problems.join('; ')}`);
    this.name = 'AppModuleError';
  }
}

/** esbuild and TypeScript, loaded on first use (a member's bundle never loads them; it is CommonJS, with a `require` of its own). */
function load(id: string): unknown {
  return (typeof require === 'function' ? require : createRequire(import.meta.url))(id);
}

/** The declaration apps import as `rocelab/app`. */
export function apiDeclaration(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'api.d.ts');
}

/** Bundle and check the module at `path` (`module` is how the topology names it). */
export function bundleApp(path: string, module: string): BundledApp {
  if (/\.(c|m)?tsx?$/.test(path)) typeCheck(path, module);
  const esbuild = load('esbuild') as typeof Esbuild;
  let bundled: string;
  try {
    const out = esbuild.buildSync({
      entryPoints: [path],
      // Paths in the bundle's comments are relative to here, so its digest does not depend on where the module lives (a container mounts it elsewhere).
      absWorkingDir: dirname(resolve(path)),
      bundle: true,
      write: false,
      format: 'iife',
      globalName: '__app',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      target: 'es2022',
      logLevel: 'silent',
      charset: 'utf8',
      // No tsconfig.json around the app decides its output (one near the topology would add "use strict", a container's /pod has none): an ES module is strict.
      tsconfigRaw: { compilerOptions: { alwaysStrict: true } },
    });
    bundled = out.outputFiles[0]!.text;
  } catch (err) {
    const errors = (err as { errors?: Esbuild.Message[] }).errors;
    if (errors === undefined) throw err;
    throw new AppModuleError(module, errors.map((e) => `${e.location === null ? path : `${e.location.file}:${e.location.line}:${e.location.column + 1}`}: ${e.text}${/Could not resolve "node:|Could not resolve "(fs|net|child_process|os|crypto|http)"/.test(e.text) ? ' (an app is pure: no Node modules)' : ''}`));
  }
  return { module, source: bundled, digest: createHash('sha256').update(bundled).digest('hex') };
}

/** Type errors of a TypeScript app against `rocelab/app`, strict, as `file:line:col: message`. */
function typeCheck(path: string, module: string): void {
  const ts = load('typescript') as typeof TS;
  const options: TS.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'],
    types: [],
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    paths: { 'rocelab/app': [apiDeclaration()] },
  };
  const program = ts.createProgram([path], options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length === 0) return;
  throw new AppModuleError(
    module,
    diagnostics.slice(0, 20).map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      if (d.file === undefined || d.start === undefined) return text;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${d.file.fileName}:${line + 1}:${character + 1}: ${text}`;
    }),
  );
}
