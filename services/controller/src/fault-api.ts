/**
 * The fault API on the controller's port (DESIGN §3, §8): `GET /faults` (the log and each fault's
 * state), `POST /faults` (inject one; body = a fault as in a topology file, `at` = now, +D or an
 * absolute time), `DELETE /faults/ID` (withdraw one not yet granted, or clear one that applied)
 * and `DELETE /faults` (all). Every call needs the pod token as a bearer credential; a missing or
 * wrong one gets 401 and is counted in the refusal log (at most one line per 10 s of wall time,
 * with the counts per caller address and reason). The rules live in
 * `FaultBook`; this file is HTTP and the coordinator.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Coordinator } from '@rocelab/sync';
import type { Logger } from '@rocelab/telemetry';
import { FaultApiError, podKey, refusalReporterFor, type FaultBook, type RefusalReporter } from '@rocelab/runtime';
import type { Fault } from '@rocelab/wire';

/** A fault body is a handful of keys; anything bigger is not one. */
const MAX_BODY_BYTES = 64 * 1024;

export class FaultApi {
  /**
   * `key`: the pod key (`podKey(token)`): a caller's token must give the same. `refusals`: by
   * default the logger's reporter, which the controller's WebSocket refusals share.
   */
  constructor(
    private readonly key: Buffer,
    private readonly book: FaultBook,
    private readonly coordinator: () => Coordinator<Fault> | null,
    private readonly virtualPs: () => number,
    private readonly log: Logger,
    private readonly refusals: RefusalReporter = refusalReporterFor(log),
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
    };
    if (!this.authorized(req)) {
      this.noteRefusal(req);
      res.setHeader('www-authenticate', 'Bearer realm="rocelab"');
      return reply(401, { error: 'unauthorized: send the pod token as `Authorization: Bearer <token>` (ROCELAB_POD_TOKEN)' });
    }
    try {
      const id = /^\/faults\/(\d+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'GET' && req.url === '/faults') return reply(200, { virtualPs: this.virtualPs(), faults: this.book.view(this.virtualPs()), log: this.book.entries() });
      if (req.method === 'POST' && req.url === '/faults') return reply(201, this.inject(await readJson(req)));
      if (req.method === 'DELETE' && id !== undefined) return reply(200, this.clear(Number(id)));
      if (req.method === 'DELETE' && req.url === '/faults') return reply(200, { cleared: this.clearAll() });
      return reply(405, { error: `${req.method} ${req.url}: expected GET /faults, POST /faults, DELETE /faults or DELETE /faults/ID` });
    } catch (err) {
      if (err instanceof FaultApiError) return reply(err.status, { error: err.message, problems: err.problems });
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'fault API failed');
      return reply(500, { error: 'internal error (logged)' });
    }
  }

  private running(): Coordinator<Fault> {
    const c = this.coordinator();
    if (c === null || c.phase === 'finished') throw new FaultApiError(409, 'the pod is not running: faults apply between its start and its end');
    return c;
  }

  private inject(body: unknown): unknown {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new FaultApiError(400, 'body: expected a JSON object: a fault {kind, at?, for?, link|node|flow, …}');
    const c = this.running();
    const fault = this.book.prepare(body as Record<string, unknown>, c.nextLeaseStartPs);
    c.schedule(fault);
    const entry = this.book.record(fault);
    this.log.info({ id: entry.id, kind: entry.kind, target: entry.target, atPs: entry.atPs }, 'live fault scheduled');
    return this.book.view(this.virtualPs()).find((v) => v.id === entry.id);
  }

  private clear(id: number): unknown {
    const c = this.running();
    // Unknown, withdrawn or cleared: refused first (a pending clear has its fault's number: never cancel that).
    this.book.open(id);
    if (c.cancel(id)) {
      this.book.withdraw(id);
      this.log.info({ id }, 'live fault withdrawn before it applied');
      return { id, cleared: 'withdrawn' };
    }
    const undo = this.book.clearOf(id, c.nextLeaseStartPs);
    c.schedule(undo);
    this.book.record(undo);
    this.log.info({ id, atPs: undo.atPs }, 'live fault cleared');
    return { id, cleared: 'undone', atPs: undo.atPs };
  }

  /** Every fault that can still be withdrawn or undone. */
  private clearAll(): unknown[] {
    const out: unknown[] = [];
    for (const f of this.book.view(this.virtualPs())) {
      if (f.state !== 'scheduled' && f.state !== 'active') continue;
      try {
        out.push(this.clear(f.id));
      } catch (err) {
        if (!(err instanceof FaultApiError)) throw err;
      }
    }
    return out;
  }

  private authorized(req: IncomingMessage): boolean {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (m === null) return false;
    const key = podKey(m[1]!);
    return key.length === this.key.length && timingSafeEqual(key, this.key);
  }

  /** Counted by the controller's refusal reporter: one log line per 10 s at most, with the counts per caller. */
  private noteRefusal(req: IncomingMessage): void {
    const why = req.headers.authorization === undefined ? 'no bearer token' : /^Bearer ./.test(req.headers.authorization) ? 'another pod token' : 'not a bearer token';
    this.refusals.refused('faultApi', req.socket.remoteAddress ?? 'unknown', `${req.method} ${req.url}: ${why}`, 'fault API calls without the pod token refused (401)');
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new FaultApiError(400, `body: expected at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new FaultApiError(400, 'body: expected JSON');
  }
}
