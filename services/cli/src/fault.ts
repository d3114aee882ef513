/**
 * `rocelab fault inject|list|clear`: the fault API of a running pod's controller (DESIGN §8),
 * with the pod token as a bearer credential (`--token`, else ROCELAB_POD_TOKEN).
 *
 *   rocelab fault inject --kind nicPauseStorm --target h16 [--at now|+2ms|12ms] [--for 5ms] [--set rate=1/256 …]
 *   rocelab fault list
 *   rocelab fault clear [ID]
 */
import { parse as parseYamlValue } from 'yaml';
import { FAULT_KINDS, FAULT_KIND_NAMES, type FaultKind } from '@rocelab/topology';
import { clearedReply, errorOfReply, faultListReply, FaultReplyError, faultViewReply, type Cleared } from './fault-replies.js';
import { table } from './result-text.js';

export interface FaultCallOptions {
  controller: string;
  token: string | null;
  json: boolean;
}

export interface InjectOptions extends FaultCallOptions {
  kind: string;
  target: string;
  at: string | null;
  for: string | null;
  set: string[];
}

class FaultCliError extends Error {}

export async function faultInjectCommand(o: InjectOptions): Promise<number> {
  return call(o, async (token) => {
    const body = faultBody(o);
    const view = faultViewReply(await request(o.controller, 'POST', '/faults', token, body), 'POST /faults');
    process.stdout.write(o.json ? `${JSON.stringify(view)}\n` : `fault ${view.id}: ${view.kind} ${view.target} at ${us(view.atNs)}${view.untilNs === null ? '' : ` until ${us(view.untilNs)}`} (${view.state})\n`);
  });
}

export async function faultListCommand(o: FaultCallOptions): Promise<number> {
  return call(o, async (token) => {
    const reply = await request(o.controller, 'GET', '/faults', token);
    const r = faultListReply(reply, 'GET /faults');
    if (o.json) {
      process.stdout.write(`${JSON.stringify(reply)}\n`);
      return;
    }
    const rows = r.faults.map((f) => [String(f.id), f.kind, f.target, us(f.atNs), f.untilNs === null ? '–' : us(f.untilNs), f.state, f.source]);
    process.stdout.write(`virtual time ${us(r.virtualPs / 1000)}\n${table(['id', 'kind', 'target', 'at', 'until', 'state', 'from'], rows, [1, 2, 5, 6]).join('\n')}\n`);
  });
}

export async function faultClearCommand(id: string | undefined, o: FaultCallOptions): Promise<number> {
  return call(o, async (token) => {
    if (id !== undefined && !/^\d+$/.test(id)) throw new FaultCliError(`ID ${JSON.stringify(id)}: expected a fault number (rocelab fault list shows them)`);
    const path = id === undefined ? '/faults' : `/faults/${id}`;
    const r = await request(o.controller, 'DELETE', path, token);
    const cleared = clearedReply(r, `DELETE ${path}`, id === undefined);
    if (o.json) {
      process.stdout.write(`${JSON.stringify(r)}\n`);
      return;
    }
    const line = (c: Cleared) => (c.cleared === 'withdrawn' ? `fault ${c.id}: withdrawn (it had not applied)` : `fault ${c.id}: undone at ${us(c.atPs! / 1000)}`);
    process.stdout.write(cleared.length === 0 ? 'no fault to clear\n' : `${cleared.map(line).join('\n')}\n`);
  });
}

/** The API body of `--kind K --target T …`: the target under the key its kind acts on. */
export function faultBody(o: Pick<InjectOptions, 'kind' | 'target' | 'at' | 'for' | 'set'>): Record<string, unknown> {
  if (!(FAULT_KIND_NAMES as string[]).includes(o.kind)) throw new FaultCliError(`--kind ${o.kind}: expected one of ${FAULT_KIND_NAMES.join(', ')}`);
  const kind = o.kind as FaultKind;
  const target = FAULT_KINDS[kind].target;
  const body: Record<string, unknown> = { kind };
  if (target === 'link') body.link = o.target;
  else if (target === 'flow') {
    const m = /^([^>]+)>([^>]+)$/.exec(o.target);
    if (m === null) throw new FaultCliError(`--target ${o.target}: a ${kind} fault acts on a flow: expected FROM>TO, e.g. h1>h2`);
    body.flow = { from: m[1], to: m[2] };
  } else body.node = o.target;
  if (o.at !== null) body.at = o.at;
  if (o.for !== null) body.for = o.for;
  for (const item of o.set) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new FaultCliError(`--set ${item}: expected KEY=VALUE, e.g. rate=1/256 or packets=[5,17]`);
    body[item.slice(0, eq)] = parseYamlValue(item.slice(eq + 1)) as unknown;
  }
  return body;
}

async function call(o: FaultCallOptions, run: (token: string) => Promise<void>): Promise<number> {
  const token = o.token ?? process.env.ROCELAB_POD_TOKEN ?? '';
  try {
    if (token === '') throw new FaultCliError('no pod token: pass --token or set ROCELAB_POD_TOKEN (rocelab up prints it)');
    await run(token);
    return 0;
  } catch (err) {
    if (err instanceof FaultCliError) {
      process.stderr.write(`rocelab fault: ${err.message}\n`);
      return 2;
    }
    if (err instanceof FaultHttpError) {
      process.stderr.write(`rocelab fault: ${err.message}\n`);
      return err.status === 401 || (err.status >= 400 && err.status < 500) ? 2 : 1;
    }
    if (err instanceof FaultReplyError) {
      process.stderr.write(`rocelab fault: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`rocelab fault: no controller answers at ${o.controller} (${err instanceof Error ? err.message : String(err)}): expected a running pod (rocelab up, docker compose up)\n`);
    return 1;
  }
}

class FaultHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function request(controller: string, method: string, path: string, token: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${controller.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    if (res.ok) throw new FaultReplyError(`${method} ${path}: expected JSON from the controller, got ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (!res.ok) throw new FaultHttpError(res.status, `${method} ${path}: ${res.status} ${errorOfReply(json) ?? text}`);
  return json;
}

const us = (ns: number) => `${(ns / 1000).toFixed(3)} µs`;
