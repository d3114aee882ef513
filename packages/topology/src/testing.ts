/**
 * Helpers for tests (`@rocelab/topology/testing`, not part of the package's API): fixture paths,
 * the smallest pod most rules need, a matcher for TopologyError problems, and the message a text
 * is rejected with.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { TopologyError, formatProblem, type Problem } from './errors.js';
import { parseTopology } from './load.js';

/** Compiled tests live in packages/topology/dist/, three levels below the repo root. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../../test/fixtures/${name}`, import.meta.url));
}

/**
 * The smallest pod most rules need, as topology text: one ToR `sw1` (subnet 10.0.1.0/24) and two
 * hosts, h1 (10.0.1.1) on sw1:p1 and h2 (10.0.1.2) on sw1:p2, named `name`; `extra` follows as
 * written (top-level keys a test adds: defaults, workloads, faults).
 */
export function twoHostPod(name: string, extra = ''): string {
  return `name: ${name}
nodes:
  - {name: sw1, role: tor, subnet: 10.0.1.0/24}
  - {name: h1, role: host, ip: 10.0.1.1}
  - {name: h2, role: host, ip: 10.0.1.2}
links:
  - {a: h1:p0, b: sw1:p1}
  - {a: h2:p0, b: sw1:p2}
${extra}`;
}

/**
 * Asserts `run` throws a TopologyError for `file` with a problem at `path` whose expectation
 * contains `expected` (and, when given, whose actual value contains `actual`), and that the
 * message carries that problem's line `FILE: PATH: expected ...`. Returns the problem.
 */
export function assertProblem(run: () => unknown, want: { file: string; code: Problem['code']; path: string; expected: string; actual?: string }): Problem {
  let error: unknown;
  try {
    run();
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof TopologyError, `expected a TopologyError, got ${String(error)}`);
  assert.equal(error.file, want.file);
  const found = error.problems.find((p) => p.path === want.path && p.expected.includes(want.expected) && (want.actual === undefined || p.actual.includes(want.actual)));
  assert.ok(found, `no problem at ${want.path} expecting "${want.expected}" in:\n${error.message}`);
  assert.equal(found.code, want.code);
  const line = formatProblem(want.file, found);
  assert.ok(found.code === 'yaml' ? line.startsWith(`${want.file}:${found.line}:${found.col}: `) : line.startsWith(`${want.file}: ${want.path}: expected `), line);
  assert.ok(error.message.split('\n').includes(line), `message lacks "${line}":\n${error.message}`);
  return found;
}

/** The TopologyError message `text` is rejected with (as `file`); fails if it is accepted. */
export function rejection(text: string, file = 'pod.yaml'): string {
  try {
    parseTopology(text, file);
  } catch (err) {
    assert.ok(err instanceof TopologyError, String(err));
    return err.message;
  }
  assert.fail('expected the topology to be rejected');
}

/** A two-host pod whose NIC settings are `defaultsNic` pod-wide and `hostNic` on h1 (the NIC settings tests). */
export const nicPod = (defaultsNic: string, hostNic = '', profile = 'vendor') => `
name: t
profile: ${profile}
timing: drill
defaults:
  nic: {${defaultsNic}}
nodes:
  - {name: tor1, role: tor}
  - {name: h1, role: host, ip: 10.0.0.1${hostNic ? `, nic: {${hostNic}}` : ''}}
  - {name: h2, role: host, ip: 10.0.0.2}
links:
  - {a: h1:p0, b: tor1:p1}
  - {a: h2:p0, b: tor1:p2}
`;
