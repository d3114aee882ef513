/**
 * The fault API's replies as `rocelab fault` reads them (services/controller/src/fault-api.ts,
 * whose views are runtime fault-book.ts's `FaultView`): each reply is checked here, once, so the
 * commands get typed values, and a reply that is not one — another program on that port, a
 * controller of another build — is a clear error naming the call and the field, never a cast.
 * Keys the commands do not read (a list's `log`) are let through: `--json` prints the reply as
 * the controller sent it.
 */
import type { FaultView } from '@rocelab/runtime';

/** What `DELETE /faults/ID` answers (`DELETE /faults`: a list of them under `cleared`). */
export interface Cleared {
  id: number;
  cleared: 'withdrawn' | 'undone';
  /** When an undone fault's clear applies (absent for a withdrawn one). */
  atPs?: number;
}

/** What `GET /faults` answers (beside `log`, the records it replays). */
export interface FaultList {
  virtualPs: number;
  faults: FaultView[];
}

/** A reply of the fault API that is not what the call answers. */
export class FaultReplyError extends Error {}

type Check = (x: unknown) => boolean;

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isString: Check = (x) => typeof x === 'string';
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const nullOr =
  (check: Check): Check =>
  (x) =>
    x === null || check(x);
const oneOf =
  (...values: string[]): Check =>
  (x) =>
    typeof x === 'string' && values.includes(x);

const STATES: ReadonlyArray<FaultView['state']> = ['scheduled', 'active', 'ended', 'cleared', 'withdrawn'];

const VIEW: Record<keyof FaultView, Check> = {
  id: isNumber,
  kind: isString,
  target: isString,
  source: isString,
  atNs: isNumber,
  untilNs: nullOr(isNumber),
  state: oneOf(...STATES),
  raw: isObject,
};

const CLEARED: Record<keyof Cleared, Check> = { id: isNumber, cleared: oneOf('withdrawn', 'undone'), atPs: isNumber };

/** Each key of `shape` checked on `x` (`optional` ones only when present); `where` names the call and the path. */
function checkShape(x: unknown, shape: Record<string, Check>, optional: readonly string[], where: string, what: string): void {
  if (!isObject(x)) throw new FaultReplyError(`${where}: expected ${what} from the controller, got ${JSON.stringify(x) ?? 'nothing'}`);
  for (const [key, ok] of Object.entries(shape)) {
    if (x[key] === undefined && optional.includes(key)) continue;
    if (!ok(x[key])) throw new FaultReplyError(`${where}.${key}: expected ${what} from the controller, got ${JSON.stringify(x[key]) ?? 'nothing'}`);
  }
}

function assertView(x: unknown, where: string): asserts x is FaultView {
  checkShape(x, VIEW, [], where, 'a fault view {id, kind, target, source, atNs, untilNs, state, raw}');
}

function assertCleared(x: unknown, where: string): asserts x is Cleared {
  checkShape(x, CLEARED, ['atPs'], where, 'a cleared fault {id, cleared, atPs}');
}

/** `POST /faults`: the fault as recorded. */
export function faultViewReply(x: unknown, call: string): FaultView {
  assertView(x, call);
  return x;
}

/** `GET /faults`. */
export function faultListReply(x: unknown, call: string): FaultList {
  if (!isObject(x) || !isNumber(x.virtualPs) || !Array.isArray(x.faults)) throw new FaultReplyError(`${call}: expected a fault list {virtualPs, faults} from the controller, got ${JSON.stringify(x) ?? 'nothing'}`);
  return { virtualPs: x.virtualPs, faults: x.faults.map((f: unknown, i) => faultViewReply(f, `${call}: faults[${i}]`)) };
}

/** `DELETE /faults/ID` (one) or `DELETE /faults` (every one, under `cleared`). */
export function clearedReply(x: unknown, call: string, all: boolean): Cleared[] {
  if (!all) return [clearedOne(x, call)];
  if (!isObject(x) || !Array.isArray(x.cleared)) throw new FaultReplyError(`${call}: expected the cleared faults {cleared: […]} from the controller, got ${JSON.stringify(x) ?? 'nothing'}`);
  return x.cleared.map((c: unknown, i) => clearedOne(c, `${call}: cleared[${i}]`));
}

function clearedOne(x: unknown, where: string): Cleared {
  assertCleared(x, where);
  return x;
}

/** The `error` of a refusal's body, if it has one. */
export function errorOfReply(x: unknown): string | null {
  return isObject(x) && typeof x.error === 'string' ? x.error : null;
}
