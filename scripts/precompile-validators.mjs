/**
 * After `tsc -b`: writes every schema's validator as standalone code, so that no process
 * compiles a schema at run time. The built-in topology schema's goes to
 * packages/topology/dist/topology-validator.cjs (a process loading a pod would compile it,
 * ~0.4 s each, times every member of a pod), and carries the SHA-256 of the schema it was made
 * from; `validate.ts` ignores it for any other schema. The others — one fault item (the
 * controller's fault API: compiled inside the first live fault, 0.6 s of CPU on the event loop
 * the pod's heartbeats share; and every fault record a member or a replay reads, runtime
 * fault-wire.ts), a drill file, and a node's report and results (read from every member's
 * reports by the controller, runtime report-wire.ts) — go to schema-validators.cjs beside it,
 * looked up by the SHA-256 of the schema a caller validates against.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../packages/topology/dist');
const { createTopologySchema } = await import(join(DIST, 'schema.js'));
const { BUILTIN_EXTENSIONS } = await import(join(DIST, 'builtin.js'));
const { newAjv, schemaSha256, PRECOMPILED_VALIDATOR, PRECOMPILED_SCHEMAS } = await import(join(DIST, 'validate.js'));
const { faultItemSchema } = await import(join(DIST, 'fault-kinds.js'));
const { drillSchema } = await import(join(DIST, '../../drill/dist/drill-schema.js'));
const { nodeReportSchema, hostResultsSchema } = await import(join(DIST, '../../results/dist/payload-schemas.js'));
// ajv as the topology package resolves it: the generated code requires its runtime helpers from there.
const standaloneCode = createRequire(join(DIST, 'validate.js'))('ajv/dist/standalone').default;

const schema = createTopologySchema(BUILTIN_EXTENSIONS);
const ajv = newAjv({ code: { source: true } });
const code = standaloneCode(ajv, ajv.compile(schema));
const out = join(DIST, PRECOMPILED_VALIDATOR);
writeFileSync(out, `${code}\nmodule.exports.schemaSha256 = ${JSON.stringify(schemaSha256(schema))};\n`);
process.stderr.write(`precompile-validators: ${relative(process.cwd(), out)} (${Math.round(code.length / 1024)} KiB)\n`);

// One file per schema (a process loads only the one it checks against: the fault item's is what
// the controller needs, the drill file's is twenty times its size), found through an index of
// lazy getters keyed by the schema's SHA-256.
const others = { fault: faultItemSchema(), drill: drillSchema(), 'node-report': nodeReportSchema(), 'host-results': hostResultsSchema() };
const index = ['"use strict";', 'const bySha256 = {};'];
for (const [name, s] of Object.entries(others)) {
  const one = newAjv({ code: { source: true } });
  const file = `${name}-validator.cjs`;
  const oneCode = standaloneCode(one, one.compile(s));
  writeFileSync(join(DIST, file), `${oneCode}\n`);
  index.push(`Object.defineProperty(bySha256, ${JSON.stringify(schemaSha256(s))}, { enumerable: true, get: () => require(${JSON.stringify(`./${file}`)}) });`);
  process.stderr.write(`precompile-validators: ${relative(process.cwd(), join(DIST, file))} (${Math.round(oneCode.length / 1024)} KiB)\n`);
}
index.push('module.exports.bySha256 = bySha256;');
writeFileSync(join(DIST, PRECOMPILED_SCHEMAS), `${index.join('\n')}\n`);
