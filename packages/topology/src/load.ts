/**
 * Loading a topology file: YAML → schema → wiring and values → `PodSpec`. Each phase reports
 * all of its problems; a later phase runs only when the earlier ones found none (checking the
 * wiring of a file whose shape is wrong would report consequences, not causes).
 */
import { isPair, isSeq, LineCounter, parseDocument, visit, type Alias, type Document } from 'yaml';
import { childPath, ROOT as ROOT_PATH, TopologyError, type Problem } from './errors.js';
import { BUILTIN_EXTENSIONS } from './builtin.js';
import { InputFileError, readInputFile } from './input-file.js';
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
  const circular = circularAliases(doc, lineCounter);
  if (circular.length > 0) throw new TopologyError(file, circular);
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (err) {
    // yaml throws a ReferenceError ("Excessive alias count …") once the expansion passes the limit.
    if (!(err instanceof ReferenceError)) throw err;
    throw new TopologyError(file, [{ code: 'yaml', path: '<root>', expected: `aliases that expand at most ${MAX_YAML_ALIAS_COUNT} times`, actual: err.message }]);
  }
}

/**
 * Aliases inside the node their anchor marks (`topology: &t {name: x, nodes: *t}`): YAML lets a
 * node contain itself, and yaml builds that as a circular object, which no check can walk and
 * JSON cannot write (it crashed as "Converting circular structure to JSON"). No pod or drill
 * means one, so each is a problem at its line, naming the path where the alias sits.
 */
function circularAliases(doc: Document, lineCounter: LineCounter): Problem[] {
  const problems: Problem[] = [];
  visit(doc, {
    Alias(_key, alias, ancestors) {
      const target = alias.resolve(doc);
      if (target === undefined || !ancestors.includes(target)) return;
      const { line, col } = lineCounter.linePos(alias.range?.[0] ?? 0);
      problems.push({
        code: 'yaml',
        path: dataPath(ancestors, alias),
        expected: 'an alias outside the node its anchor marks: a node cannot contain itself',
        actual: `the alias *${alias.source} at ${dataPath(ancestors, alias)} is inside &${alias.source}`,
        line,
        col,
      });
    },
  });
  return problems;
}

/** `topology.nodes[0]`: where `node` sits, from its ancestors (document, collections, pairs); a key says so. */
function dataPath(ancestors: readonly unknown[], node: Alias): string {
  const chain = [...ancestors, node];
  let path = ROOT_PATH;
  for (let i = 0; i < chain.length - 1; i++) {
    const here = chain[i];
    const next = chain[i + 1];
    if (isSeq(here)) path = childPath(path, here.items.indexOf(next));
    else if (isPair(here)) {
      if (next === here.key) return `${path} (a key)`;
      const key = (here.key as { value?: unknown } | null)?.value;
      path = childPath(path, typeof key === 'string' || typeof key === 'number' ? String(key) : '?');
    }
  }
  return path;
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

/** Reads and parses a topology file; an unreadable, special or oversized file is a TopologyError with code `io`. */
export function loadTopologyFile(path: string, ext: SchemaExtensions = BUILTIN_EXTENSIONS): PodSpec {
  let text: string;
  try {
    text = readInputFile(path, 'topology file');
  } catch (err) {
    if (!(err instanceof InputFileError)) throw err;
    throw new TopologyError(path, [{ code: 'io', path: '<root>', expected: err.expected, actual: err.actual }]);
  }
  return parseTopology(text, path, ext);
}
