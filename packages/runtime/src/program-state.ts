/**
 * What the host keeps of each native program (issue 25): its threads and their waits, its verbs
 * objects (MRs, CQs, completion channels, SRQs, QPs) and its outcome so far. Plain records:
 * program-host.ts schedules the threads and program-verbs.ts serves the verbs on them.
 */
import type { SharedReceives } from '@rocelab/rnic';
import type { ProgramSpec } from '@rocelab/topology';
import { PROGRAM_LOG_MAX_LINES, type ProgramReport } from '@rocelab/results';
import type { ProgramChannel, ThreadChannel } from '@rocelab/native';

export interface Mr {
  handle: number;
  lkey: number;
  rkey: number;
  /** The program's address of the first registered byte, and the registered bytes themselves (the shared pages). */
  addr: bigint;
  bytes: Uint8Array;
}

export interface Cq {
  handle: number;
  wcs: Uint8Array[];
  channel: number;
  armed: boolean;
}

export interface Qp {
  qpn: number;
  sendCq: Cq;
  recvCq: Cq;
  state: number;
  sigAll: boolean;
  pathMtu: number | null;
  destQpn: number | null;
  destIp: number | null;
  rqPsn: number;
  sqPsn: number;
  retryCnt: number | null;
  rnrRetry: number | null;
  maxRdAtomic: number | null;
  dscp: number;
  /** Receives posted before RTR (ibv_rc_pingpong posts them in INIT): handed to the responder when it exists. */
  early: Uint8Array[];
  /** Its shared receive queue, if it was created on one. */
  srq: SharedReceives | null;
  sending: boolean;
  receiving: boolean;
}

export interface PendingWr {
  program: Program;
  qp: Qp;
  wrId: bigint;
  signaled: boolean;
  opcode: number;
  bytes: number;
}

export type Answer = { err: number; body?: Uint8Array };
export interface Waiter {
  type: number;
  ready(): boolean;
  answer(): Answer;
  /** A poll with a timeout: ready at this virtual instant at the latest. */
  deadlinePs?: number;
}

/** One thread of a program: the main thread (index 0, the program's channel) or one it started. */
export interface Thread {
  index: number;
  channel: ProgramChannel | ThreadChannel;
  waiter: Waiter | null;
  sleepUntilPs: number | null;
  /** To be served without a reply first: the program just started, or the thread's RL_THREAD_START is unread. */
  fresh: boolean;
  done: boolean;
  /** An empty poll was answered at once (a program with threads): the next one in a row waits. */
  polledEmpty: boolean;
}

export interface Program {
  spec: ProgramSpec;
  channel: ProgramChannel;
  threads: Thread[];
  /** Bumped by RL_THREAD_WAKE and by a thread's end: ends the RL_THREAD_YIELDs of the program. */
  wakes: number;
  outcome: ProgramReport;
  mrs: Map<number, Mr>;
  cqs: Map<number, Cq>;
  channels: Map<number, number[]>;
  srqs: Map<number, SharedReceives>;
  qps: Map<number, Qp>;
  nextHandle: number;
  /** Bumped by everything the program could see happen: a wait for anything ends at the next bump. */
  seen: number;
  done: boolean;
}

/** A line in the program's log (its report's `log`), stamped with the virtual time; the oldest go past the cap. */
export function logLine(p: Program, nowPs: number, line: string): void {
  p.outcome.log.push(`${(nowPs / 1e6).toFixed(3)} us ${line}`);
  if (p.outcome.log.length > PROGRAM_LOG_MAX_LINES) p.outcome.log.shift();
}

/** A call the device does not implement: counted in the report's `unsupported`, and logged (docs/errors.md). */
export function logUnsupported(p: Program, nowPs: number, name: string): void {
  p.outcome.unsupported[name] = (p.outcome.unsupported[name] ?? 0) + 1;
  logLine(p, nowPs, `${name} is not supported by rocelab0: it failed with EOPNOTSUPP`);
}
