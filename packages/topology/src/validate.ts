/**
 * Schema validation with ajv, and the translation of ajv's errors into problems a person can
 * act on: `links[0].raet: expected one of the keys a, b, rate, ..., got unknown key "raet"`.
 *
 * ajv runs with `allErrors` (report everything in one pass) and without coercion or defaults
 * (a file that says `mtu: "1024"` is wrong, and defaults are applied once, in resolution).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject, Options, ValidateFunction } from 'ajv';
import { ROOT, childPath, describeValue, type Problem } from './errors.js';
import type { SchemaExtensions } from './extensions.js';
import type { JsonSchema } from './schema-atoms.js';
import { createTopologySchema } from './schema.js';

/**
 * CommonJS files this module loads on demand. In a member bundle (scripts/bundle-members.mjs)
 * `require` is defined, and the bundler rewrites each literal `require('…')` to the file the
 * build made (loaded only if called); as plain ES modules it is not, and a require made for
 * this file loads them.
 */
const requireHere = createRequire(import.meta.url);
const bundled = typeof require === 'function';

/** verbose: errors carry their parentSchema, whose `description` becomes the expectation. */
export const AJV_OPTIONS: Options = { allErrors: true, verbose: true, coerceTypes: false, useDefaults: false, strictTypes: false, strictTuples: false };

/**
 * The build's standalone validator of the built-in schema (`scripts/precompile-validators.mjs`).
 * Compiling the schema costs ~0.4 s per process, and every member of a pod loads the pod:
 * loading the compiled code costs ~15 ms. It is used only for the exact schema it was made
 * from (the SHA-256 of its JSON), so a stale file is ignored, never trusted.
 */
export const PRECOMPILED_VALIDATOR = 'topology-validator.cjs';

/** The fingerprint a precompiled validator is checked against. */
export function schemaSha256(schema: JsonSchema): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex');
}

/** A new ajv with our options, loaded on first use: a process that never compiles a schema never loads ajv. */
export function newAjv(extra: Options = {}): AjvClass {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundler sees a literal require (above)
  const { Ajv } = (bundled ? require('ajv') : requireHere('ajv')) as typeof import('ajv');
  return new Ajv({ ...AJV_OPTIONS, ...extra });
}

function precompiled(schema: JsonSchema): ValidateFunction | null {
  let loaded: ValidateFunction & { schemaSha256?: string };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundler sees a literal require (above)
    loaded = (bundled ? require('./topology-validator.cjs') : requireHere('./topology-validator.cjs')) as typeof loaded;
  } catch {
    return null; // a build that skipped the step (tsc alone): compile instead
  }
  return loaded.schemaSha256 === schemaSha256(schema) ? loaded : null;
}

export interface SchemaValidator {
  validate: ValidateFunction;
  /** Whether the build's standalone code serves this schema, or ajv compiled it here. */
  source: 'precompiled' | 'compiled';
}

export type TopologyValidator = SchemaValidator;

const validators = new WeakMap<SchemaExtensions, TopologyValidator>();

/** The validator of the topology schema with `ext`, made once per extensions object. */
export function topologyValidator(ext: SchemaExtensions): TopologyValidator {
  let v = validators.get(ext);
  if (!v) {
    const schema = createTopologySchema(ext);
    const loaded = precompiled(schema);
    v = loaded === null ? { validate: newAjv().compile(schema), source: 'compiled' } : { validate: loaded, source: 'precompiled' };
    validators.set(ext, v);
  }
  return v;
}

/** `/links/3/b` → `links[3].b`, using the data to tell list indices from keys. */
function readablePath(pointer: string, data: unknown): string {
  let path = ROOT;
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path = childPath(path, Number(key));
      node = node[Number(key)];
    } else {
      path = childPath(path, key);
      node = (node as Record<string, unknown> | undefined)?.[key];
    }
  }
  return path;
}

const TYPE_NAMES: Record<string, string> = { object: 'a mapping', array: 'a list', string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', null: 'null' };

function expectation(e: ErrorObject): string {
  const parent = (e.parentSchema ?? {}) as JsonSchema;
  const description = typeof parent['description'] === 'string' ? parent['description'] : undefined;
  switch (e.keyword) {
    case 'enum':
      return `one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return JSON.stringify((e.params as { allowedValue: unknown }).allowedValue);
    case 'type':
      return description ?? String((e.params as { type: string }).type).split(',').map((t) => TYPE_NAMES[t] ?? t).join(' or ');
    default:
      return description ?? `a value that ${e.message ?? 'matches the schema'}`;
  }
}

function toProblem(e: ErrorObject, data: unknown): Problem {
  const path = readablePath(e.instancePath, data);
  const properties = ((e.parentSchema ?? {}) as { properties?: Record<string, JsonSchema> }).properties ?? {};
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    return { code: 'schema', path: childPath(path, key), expected: `one of the keys ${Object.keys(properties).join(', ')}`, actual: `unknown key ${JSON.stringify(key)}` };
  }
  if (e.keyword === 'required') {
    const key = (e.params as { missingProperty: string }).missingProperty;
    const description = properties[key]?.['description'];
    return { code: 'schema', path: childPath(path, key), expected: `${typeof description === 'string' ? description : 'a value'} (required)`, actual: 'nothing' };
  }
  return { code: 'schema', path, expected: expectation(e), actual: describeValue(e.data) };
}

/**
 * An `anyOf`/`oneOf` failure brings every branch's errors. When the value's type matches exactly
 * one branch, that branch's errors are the helpful ones; otherwise the combinator's own
 * description says it best. Innermost combinators are settled first.
 */
function settleCombinators(errors: ErrorObject[]): ErrorObject[] {
  let remaining = errors.filter((e) => e.keyword !== 'if'); // `if` failures only explain a `then`
  const combinators = remaining.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  combinators.sort((x, y) => y.schemaPath.length - x.schemaPath.length);
  for (const c of combinators) {
    const prefix = `${c.schemaPath}/`;
    const inside = remaining.filter((e) => e.schemaPath.startsWith(prefix));
    const branches = ((c.parentSchema as Record<string, unknown>)[c.keyword] as unknown[]).map((_, i) => inside.filter((e) => e.schemaPath.startsWith(`${prefix}${i}/`)));
    const typed = branches.filter((b) => !b.some((e) => e.keyword === 'type' && e.instancePath === c.instancePath));
    const keep = typed.length === 1 && typed[0]!.length > 0 ? typed[0]! : [c];
    remaining = remaining.filter((e) => !(e === c || inside.includes(e)) || keep.includes(e));
  }
  return remaining;
}

/** Problems with the file's shape, or none. */
export function validateSchema(data: unknown, ext: SchemaExtensions): Problem[] {
  return problemsOf(topologyValidator(ext).validate, data);
}

/**
 * The build's standalone validators of the other schemas a process checks input against — one
 * fault item (the controller's fault API) and a drill file — keyed by the SHA-256 of each
 * schema (`scripts/precompile-validators.mjs`). Compiling the fault schema cost the controller
 * ≈ 0.6 s of CPU inside the first `POST /faults`, on the event loop every member's heartbeat
 * depends on (issue 22: seconds under load).
 */
export const PRECOMPILED_SCHEMAS = 'schema-validators.cjs';

let precompiledTable: Readonly<Record<string, ValidateFunction>> | null | undefined;

function precompiledBySha(sha: string): ValidateFunction | null {
  if (precompiledTable === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundler sees a literal require (above)
      const loaded = (bundled ? require('./schema-validators.cjs') : requireHere('./schema-validators.cjs')) as { bySha256?: Record<string, ValidateFunction> };
      precompiledTable = loaded.bySha256 ?? null;
    } catch {
      precompiledTable = null; // a build that skipped the step: compile instead
    }
  }
  return precompiledTable?.[sha] ?? null;
}

const otherSchemas = new WeakMap<JsonSchema, SchemaValidator>();
const otherBySha = new Map<string, SchemaValidator>();

/**
 * The validator of another file format's schema (a fault item, a drill file): the build's
 * standalone code when it was made from this exact schema, else compiled here, once per schema
 * (by object, and by content for callers that build the schema afresh each time).
 */
export function schemaValidator(schema: JsonSchema): SchemaValidator {
  let v = otherSchemas.get(schema);
  if (v === undefined) {
    const sha = schemaSha256(schema);
    v = otherBySha.get(sha);
    if (v === undefined) {
      const loaded = precompiledBySha(sha);
      v = loaded === null ? { validate: newAjv().compile(schema), source: 'compiled' } : { validate: loaded, source: 'precompiled' };
      otherBySha.set(sha, v);
    }
    otherSchemas.set(schema, v);
  }
  return v;
}

/**
 * Problems of `data` against another file format's schema (drill files, fault items), read the
 * same way. `under` is where `data` sits in what it came in (`fault`, `stats.reportJson`): the
 * problems' paths start there.
 */
export function validateWith(schema: JsonSchema, data: unknown, under: string = ROOT): Problem[] {
  const problems = problemsOf(schemaValidator(schema).validate, data);
  if (under === ROOT) return problems;
  return problems.map((p) => ({ ...p, path: p.path === ROOT ? under : `${under}.${p.path}` }));
}

function problemsOf(validate: ValidateFunction, data: unknown): Problem[] {
  if (validate(data)) return [];
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const e of settleCombinators(validate.errors ?? [])) {
    const p = toProblem(e, data);
    const key = `${p.path}\n${p.expected}\n${p.actual}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(p);
    }
  }
  return problems;
}
