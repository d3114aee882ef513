/**
 * After `tsc -b`: writes the built-in topology schema's validator as standalone code
 * (packages/topology/dist/topology-validator.cjs), so that a process loading a pod does not
 * compile the schema (~0.4 s each, times every member of a pod). The file carries the
 * SHA-256 of the schema it was made from; `validate.ts` ignores it for any other schema.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/topology/dist');
const { createTopologySchema } = await import(join(DIST, 'schema.js'));
const { BUILTIN_EXTENSIONS } = await import(join(DIST, 'builtin.js'));
const { newAjv, schemaSha256, PRECOMPILED_VALIDATOR } = await import(join(DIST, 'validate.js'));
// ajv as the topology package resolves it: the generated code requires its runtime helpers from there.
const standaloneCode = createRequire(join(DIST, 'validate.js'))('ajv/dist/standalone').default;

const schema = createTopologySchema(BUILTIN_EXTENSIONS);
const ajv = newAjv({ code: { source: true } });
const code = standaloneCode(ajv, ajv.compile(schema));
const out = join(DIST, PRECOMPILED_VALIDATOR);
writeFileSync(out, `${code}\nmodule.exports.schemaSha256 = ${JSON.stringify(schemaSha256(schema))};\n`);
process.stderr.write(`precompile-validators: ${relative(process.cwd(), out)} (${Math.round(code.length / 1024)} KiB)\n`);
