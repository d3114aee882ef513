import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The clients that must load only with their subpath (./docker, ./k8s, ./k8s-run). */
const CLIENTS = ['dockerode', '@kubernetes/client-node', 'kubernetes-models', '@kubernetes-models/prometheus-operator'];

/** The modules a compiled file loads: static imports, re-exports and import() of a literal (type-only ones are gone from the .js). */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)];
  return found.map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** Every bare module the package's files reachable from `entry` load, following its own relative imports. */
function loadedFrom(entry: string): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const queue = [new URL(entry, import.meta.url).href];
  while (queue.length > 0 && seen.size < 200) {
    const url = queue.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    for (const spec of specifiers(readFileSync(fileURLToPath(url), 'utf8'))) {
      if (spec.startsWith('.')) queue.push(new URL(spec, url).href);
      else bare.add(spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  return bare;
}

test('the scanner sees imports, re-exports, side-effect imports and import() of the compiled files', () => {
  const sample = ["import Docker from 'dockerode';", "export { a } from './a.js';", "import 'side';", "const k = await import('@kubernetes/client-node');", "const s = 'import x from \"no\"';"].join('\n');
  assert.deepEqual(specifiers(sample), ['dockerode', './a.js', 'side', '@kubernetes/client-node']);
  assert.ok(loadedFrom('./docker-pod.js').has('dockerode'));
  assert.ok(loadedFrom('./k8s-pod.js').has('@kubernetes/client-node'));
  assert.ok(loadedFrom('./k8s.js').has('kubernetes-models'));
});

test('the main entry loads no Docker or Kubernetes client: every rocelab command may import it', () => {
  const loaded = loadedFrom('./index.js');
  assert.deepEqual(CLIENTS.filter((c) => loaded.has(c)), []);
  assert.ok(loaded.has('@rocelab/topology'), [...loaded].join(', '));
});
