/**
 * A workload's set of hosts: a list as written, or `all` (every host of the pod). A host's
 * position in the expanded list is its slot in flow ids (flow-id.ts), so the order must be the
 * same on every host: a written list keeps the file's order; `all` is the pod's hosts sorted
 * by name (the node order of DESIGN §3).
 */
import { PHRASE, type Fields, type HostRef } from './fields.js';
import { MAX_SLOTS } from './flow-id.js';

export type HostSet = 'all' | readonly string[];

/**
 * Schema of a host-set field: a non-empty list of names or the string `all`. One schema rather
 * than an `anyOf`, so every failure reports this field's description: `pattern` applies only to
 * strings, `items` and `minItems` only to lists.
 */
export const hostSetSchema = {
  type: ['array', 'string'],
  pattern: '^all$',
  items: { type: 'string', description: PHRASE.host },
  minItems: 1,
  description: PHRASE.hosts,
} as const;

/** The `hosts` field of permutation, shuffle, poisson and pingmesh. */
export const hostsFieldSchema = { ...hostSetSchema, description: 'the hosts: a list of at least 2 distinct host names, or all (the default)' } as const;

/** The host names a host-set field mentions (`hosts[2]`), none for `all` or an absent field. */
export function hostSetRefs(field: string, value: unknown): HostRef[] {
  return Array.isArray(value) ? value.map((name: string, i) => ({ field: `${field}[${i}]`, name })) : [];
}

/** The host names of a kind whose set is its `hosts` field (permutation, shuffle, poisson, pingmesh). */
export function hostsFieldRefs(raw: Record<string, unknown>): HostRef[] {
  return hostSetRefs('hosts', raw['hosts']);
}

/**
 * A schema-valid host-set value (absent = `all`), checked: distinct names, at least `min`
 * of them, and no more than the flow-id slots.
 */
export function resolveHostSet(field: string, value: unknown, min: number, fields: Fields): HostSet {
  if (value === undefined || value === 'all') return 'all';
  const names = value as string[];
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    const first = seen.get(name);
    if (first !== undefined) fields.add(`${field}[${i}]`, `a host not already listed (also ${field}[${first}])`, name);
    else seen.set(name, i);
  });
  if (names.length < min) fields.add(field, `at least ${min} hosts`, names);
  if (names.length > MAX_SLOTS) fields.add(field, `at most ${MAX_SLOTS} hosts`, `${names.length} hosts`);
  return [...names];
}

/**
 * The set's hosts in slot order; `all` is `podHosts` sorted by name. The answer is shared and
 * frozen, kept per list: every host of a process asks for the same one.
 */
export function expandHosts(set: HostSet, podHosts: readonly string[]): readonly string[] {
  const key = set === 'all' ? podHosts : set;
  let hosts = expanded.get(key);
  if (hosts === undefined) {
    hosts = Object.freeze(set === 'all' ? [...podHosts].sort() : [...set]);
    if (hosts.length > MAX_SLOTS) throw new RangeError(`a workload spans ${hosts.length} hosts; flow ids number at most ${MAX_SLOTS}`);
    expanded.set(key, hosts);
  }
  return hosts;
}

const expanded = new WeakMap<readonly string[], readonly string[]>();
