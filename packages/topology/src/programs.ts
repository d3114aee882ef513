/**
 * The hosts' native programs (issue 25): unmodified binaries (perftest, ibv_rc_pingpong, a
 * user's own verbs code) that a host's member runs as child processes, each seeing the host's
 * `rocelab0` device. A program is code from whoever wrote the file, like an app: loading a file
 * runs nothing. What is resolved here is what every process must agree on: the argv with the
 * pod's names expanded, the environment, the working directory and the wall-clock limit.
 *
 * `{h2}` in an argument (or an env value) is h2's IPv4 address, `{h2.name}` its name, so that a
 * client names its server the way the pod does. Braces around anything that is not a node name
 * (`{}`, `{1,2}`) are left as written.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { childPath, type Problems } from './errors.js';
import { formatIpv4 } from './ipv4.js';
import type { NodeTable } from './nodes.js';
import type { ProgramSpec } from './pod.js';
import type { RawTopology } from './schema.js';
import { parseDuration } from './units.js';

/** A program may block this long in wall-clock time between two of its waits when `timeout` is not given. */
export const DEFAULT_PROGRAM_TIMEOUT_MS = 60_000;
/** Bounds of `timeout`: a program is never given less than a millisecond, nor more than an hour, between two waits. */
export const PROGRAM_TIMEOUT_MIN_MS = 1;
export const PROGRAM_TIMEOUT_MAX_MS = 3_600_000;

const PS_PER_MS = 1e9;
/** `{name}` or `{name.name}`, a name as NODE_NAME_PATTERN spells it. */
const PLACEHOLDER = /\{([a-z][a-z0-9-]*)(\.name)?\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** What a program's `env` may not set: the device's loading (the preload, its libraries, an audit library) and rocelab's own variables (the channel, the identity, the pod token). Kept in step with packages/native/src/sandbox.ts's reservedEnvName. */
const RESERVED_ENV = /^(LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|ROCELAB_.*)$/;

/** What `{…}` in a program's text may name: each node's name, and each host's address. */
export interface PodNames {
  /** Host name → its IPv4 address, dotted. */
  hosts: ReadonlyMap<string, string>;
  /** Every node's name (hosts and switches). */
  nodes: ReadonlySet<string>;
}

/** A placeholder that names nothing it can stand for. */
export interface Unexpanded {
  placeholder: string;
  /** `unknown`: no node has that name; `switch`: a switch has no address to give. */
  why: 'unknown' | 'switch';
}

/**
 * `text` with every `{host}` replaced by the host's address and every `{node.name}` by the
 * node's name; or the first placeholder that names nothing (an unknown node, a switch's address).
 */
export function expandNames(text: string, names: PodNames): { text: string } | { unexpanded: Unexpanded } {
  let bad: Unexpanded | null = null;
  const out = text.replace(PLACEHOLDER, (placeholder, name: string, dotName: string | undefined) => {
    if (!names.nodes.has(name)) bad ??= { placeholder, why: 'unknown' };
    else if (dotName !== undefined) return name;
    else {
      const ip = names.hosts.get(name);
      if (ip !== undefined) return ip;
      bad ??= { placeholder, why: 'switch' };
    }
    return placeholder;
  });
  return bad === null ? { text: out } : { unexpanded: bad };
}

/** The names a program's text may use, from the pod's nodes. */
export function podNames(table: NodeTable): PodNames {
  const hosts = table.nodes.filter((n) => n.role === 'host');
  return { hosts: new Map(hosts.map((h) => [h.name, formatIpv4(h.ip)])), nodes: new Set(table.nodes.map((n) => n.name)) };
}

/** The phrase a problem with a placeholder expects. */
function placeholderExpected(names: PodNames): string {
  const hosts = [...names.hosts.keys()];
  const shown = `${hosts.slice(0, 5).join(', ')}${hosts.length > 5 ? ', …' : ''}`;
  return `{HOST} (a host's address) or {NODE.name} naming a node of the topology (hosts: ${shown || 'none'})`;
}

/**
 * The directory the file's relative paths start from (`<inline>`: the working directory), absolute:
 * a sandbox binds it by path from a process whose working directory may differ.
 */
function baseOf(file: string): string {
  return file === '<inline>' ? process.cwd() : resolve(dirname(file));
}

/** `run[0]` with a slash is a file relative to the topology file; without one, a name the program's PATH finds when it starts. */
export function isProgramPath(run0: string): boolean {
  return run0.includes('/');
}

export function resolvePrograms(raw: RawTopology, file: string, table: NodeTable, problems: Problems): ProgramSpec[] {
  const names = podNames(table);
  const base = baseOf(file);
  const programs: ProgramSpec[] = [];
  for (const node of table.nodes) {
    const at = table.declaredAt.get(node.name)!;
    const rawNode = raw.nodes[at]!;
    const list = rawNode.programs;
    if (list === undefined) continue;
    const path = `nodes[${at}].programs`;
    if (node.role !== 'host') {
      problems.add('value', path, "programs on a host only (they run beside the host's NIC, on its rocelab0 device)", `programs on ${node.name}, a ${node.role}`);
      continue;
    }
    if (rawNode.app !== undefined && list.length > 0) {
      problems.add('value', path, 'either app or programs on a host, not both (each would own the host\'s NIC)', `both on ${node.name}`);
      continue;
    }
    list.forEach((p, index) => {
      const where = `${path}[${index}]`;
      const expand = (text: string, at: string): string => {
        const r = expandNames(text, names);
        if ('text' in r) return r.text;
        const actual = `${JSON.stringify(text)}: ${r.unexpanded.why === 'unknown' ? `no node is named ${r.unexpanded.placeholder.slice(1, -1).replace(/\.name$/, '')}` : `${r.unexpanded.placeholder.slice(1, -1)} is a switch, which has no address (${r.unexpanded.placeholder.slice(0, -1)}.name} is its name)`}`;
        problems.add('reference', at, placeholderExpected(names), actual);
        return text;
      };
      const argv = p.run.map((arg, k) => expand(arg, `${where}.run[${k}]`));
      const env = Object.fromEntries(
        Object.entries(p.env ?? {}).map(([key, value]) => {
          if (!ENV_NAME.test(key)) problems.add('value', `${where}.env`, 'environment variable names of letters, digits and _, not starting with a digit', JSON.stringify(key));
          else if (RESERVED_ENV.test(key)) problems.add('value', childPath(`${where}.env`, key), "a variable of the program's own (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT and ROCELAB_* are rocelab's: they put the rocelab0 device in place and keep the program in its sandbox)", `${key}, which a topology may not set`);
          return [key, expand(value, childPath(`${where}.env`, key))];
        }),
      );
      const cwd = p.cwd === undefined ? base : resolve(base, p.cwd);
      if (p.cwd !== undefined) checkDirectory(cwd, p.cwd, `${where}.cwd`, problems);
      const run0 = argv[0]!;
      if (run0 === '') problems.add('value', `${where}.run[0]`, 'a program: a name found on PATH, or a path relative to the topology file', '""');
      else if (isProgramPath(run0)) {
        const full = resolve(base, run0);
        if (checkExecutable(full, run0, `${where}.run[0]`, problems)) argv[0] = full;
      }
      const timeoutMs = p.timeout === undefined ? DEFAULT_PROGRAM_TIMEOUT_MS : problems.parse(`${where}.timeout`, DEFAULT_PROGRAM_TIMEOUT_MS, () => parseDuration(p.timeout!) / PS_PER_MS);
      if (!(timeoutMs >= PROGRAM_TIMEOUT_MIN_MS && timeoutMs <= PROGRAM_TIMEOUT_MAX_MS)) problems.add('value', `${where}.timeout`, 'a wall-clock timeout of 1ms..1h (like 60s or 500ms)', JSON.stringify(p.timeout));
      programs.push({ node: node.name, index, argv, env, cwd, timeoutMs, where });
    });
  }
  return programs;
}

/** A program given by path must be an executable regular file when the file is read, not when the run is half-way. */
function checkExecutable(full: string, written: string, path: string, problems: Problems): boolean {
  const expected = 'an executable file (a path relative to the topology file), or a program name found on PATH (no slash)';
  try {
    const st = statSync(full);
    if (!st.isFile()) {
      problems.add('value', path, expected, `${JSON.stringify(written)}: ${full} is not a regular file`);
      return false;
    }
    accessSync(full, constants.X_OK);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.add('value', path, expected, `${JSON.stringify(written)}: ${full}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not executable' : String(code ?? err)}`);
    return false;
  }
}

function checkDirectory(full: string, written: string, path: string, problems: Problems): void {
  let ok = false;
  try {
    ok = statSync(full).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) problems.add('value', path, 'a directory (relative to the topology file) for the program to start in', `${JSON.stringify(written)}: ${full} is not a directory`);
}
