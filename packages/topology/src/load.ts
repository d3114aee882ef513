/**
 * Loading a topology file: YAML → schema → wiring and values → `PodSpec`. Each phase reports
 * all of its problems; a later phase runs only when the earlier ones found none (checking the
 * wiring of a file whose shape is wrong would report consequences, not causes).
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { TopologyError, type Problem } from './errors.js';
import { BUILTIN_EXTENSIONS } from './builtin.js';
import type { SchemaExtensions } from './extensions.js';
import type { PodSpec } from './pod.js';
import { resolvePod } from './resolve.js';
import type { RawTopology } from './schema.js';
import { validateSchema } from './validate.js';

/**
 * How many times aliases may expand (yaml's `maxAliasCount`, relative to each anchor's size):
 * a "billion laughs" file of nested anchors would otherwise build gigabytes from a few lines.
 * Pods reuse an anchor a handful of times (`<<: *defaults`), far below this.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/** YAML 1.2 (so `no` stays a string); duplicate keys are errors, not last-one-wins. */
export function parseYaml(text: string, file: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e): Problem => {
      const { line, col } = lineCounter.linePos(e.pos[0]);
      return { code: 'yaml', path: '<root>', expected: 'valid YAML', actual: e.message.split('\n')[0]!, line, col };
    });
    throw new TopologyError(file, problems);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (err) {
    // yaml throws a ReferenceError ("Excessive alias count …") once the expansion passes the limit.
    if (!(err instanceof ReferenceError)) throw err;
    throw new TopologyError(file, [{ code: 'yaml', path: '<root>', expected: `aliases that expand at most ${MAX_YAML_ALIAS_COUNT} times`, actual: err.message }]);
  }
}

/** Parses and validates topology text; `file` names it in errors. Throws TopologyError. */
export function parseTopology(text: string, file = '<inline>', ext: SchemaExtensions = BUILTIN_EXTENSIONS): PodSpec {
  return topologyFromData(parseYaml(text, file), file, ext);
}

/** A topology already read from YAML (a drill's variant, built by merging): validated and resolved. */
export function topologyFromData(data: unknown, file = '<inline>', ext: SchemaExtensions = BUILTIN_EXTENSIONS): PodSpec {
  const problems = validateSchema(data, ext);
  if (problems.length > 0) throw new TopologyError(file, problems);
  return resolvePod(data as RawTopology, file, ext);
}

/** Reads and parses a topology file; an unreadable file is a TopologyError with code `io`. */
export function loadTopologyFile(path: string, ext: SchemaExtensions = BUILTIN_EXTENSIONS): PodSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new TopologyError(path, [{ code: 'io', path: '<root>', expected: 'a readable topology file', actual: e.code ?? e.message }]);
  }
  return parseTopology(text, path, ext);
}
