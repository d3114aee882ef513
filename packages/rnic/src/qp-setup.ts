/**
 * The NIC's queue pairs as a host brings them up: an RC requester (with its DCQCN reaction
 * point) for each connection the host opens, an RC responder (with its notification point) for
 * each connection opened to it, and their timers in the host's table. TCP connections are not
 * the NIC's (the host's stack carries them), and a rebooted host has no QPs at all.
 */
import type { DscpMap } from '@rocelab/wire';
import type { LinkDirectionConfig, TimerTable } from '@rocelab/sim';
import { DcqcnNotificationPoint } from './dcqcn-np.js';
import { createCongestionControl, type CcPath } from './cc.js';
import type { NicSettings } from './nic-settings.js';
import { isTcp, unpaced, type AppWork, type QpEnd, type ReceiverQp, type SenderQp, type SharedReceives } from './nic-types.js';
import { RcRequester } from './rc-requester.js';
import { RcResponder } from './rc-responder.js';
import type { SelectiveRepeatConfig } from './selective-repeat.js';

export interface QpConfig {
  /** Connections this host sends on, and connections other hosts send to it (the NIC takes the RC ones; TCP is the host's). */
  requesters: readonly QpEnd[];
  responders: readonly QpEnd[];
  settings: NicSettings;
  dscpMap: DscpMap;
  /**
   * The host came back from a `restart` (or a `kill` with `for`): its applications are gone, so
   * the NIC has no queue pairs. Whatever arrives for a QP is dropped (`misdelivered`); the peers'
   * requesters time out and end in error. Reconnecting is out of scope.
   */
  rebooted?: boolean;
  /** Selective repeat with `bdpCap: auto`: a requester's cap on packets in flight, its bandwidth-delay product (the runtime knows the path). */
  bdpCapOf?: (end: QpEnd) => number;
  /** The pod's largest base RTT and BDP (third.cc `maxRtt`, `maxBdp`): HPCC and `window: {bytes: auto}` need them (issue 26). */
  ccPath?: CcPath;
}

/** What the QPs' timers do when they fire (the NIC's). */
export interface QpTimerHandlers {
  /** A requester's retransmission (or RNR wait) timer. */
  rto(nowPs: number, q: SenderQp): void;
  /** A notification point's window ended (`timer`: its id, to arm it again). */
  np(nowPs: number, q: SenderQp | ReceiverQp, timer: number): void;
}

export interface Qps {
  senders: SenderQp[];
  receivers: ReceiverQp[];
}

/**
 * A QP a program brings up at run time (issue 25): its PSNs, path MTU and retry budget are the
 * program's (`ibv_modify_qp`), not the host's defaults. Null fields take the host's settings.
 */
export interface QpOverrides {
  initialPsn: number;
  mtu: number | null;
  retryCount: number | null;
  rnrRetry: number | null;
  maxRdAtomic: number | null;
  /** A shared receive queue: its posted buffers (oldest first) and their count, shared with every QP on it. */
  srq?: SharedReceives;
}

/** The notification point DCQCN puts at a receiver (none without DCQCN, nor under hpcc-ns3 or another `cc`, whose CNPs ride ACKs). */
export function notificationPoint(s: NicSettings): DcqcnNotificationPoint | null {
  return s.cc === 'dcqcn' && s.dcqcn.enabled && s.dcqcn.variant !== 'hpcc-ns3' ? new DcqcnNotificationPoint(s.dcqcn.variant, s.cnpIntervalPs) : null;
}

/** The host's QPs, their timers registered in this order: retransmission (one per requester), responder NP (one per responder), READ NP (one per requester). */
export function createQps(host: string, config: QpConfig, out: LinkDirectionConfig, timers: TimerTable, on: QpTimerHandlers): Qps {
  const rc = (ends: readonly QpEnd[]) => (config.rebooted === true ? [] : ends.filter((e) => !isTcp(e)));
  const senders: SenderQp[] = rc(config.requesters).map((end, index) => newSender(host, config, out, end, index, null));
  const rtoTimers = timers.registerEach(senders.length, (nowPs, i) => on.rto(nowPs, senders[i]!));
  const receivers: ReceiverQp[] = [];
  const receiverNps = timers.registerEach(rc(config.responders).length, (nowPs, i) => on.np(nowPs, receivers[i]!, receivers[i]!.timer));
  for (const [index, end] of rc(config.responders).entries()) receivers.push(newReceiver(config, out, end, receiverNps + index, null));
  const readNpTimers = timers.registerEach(senders.length, (nowPs, i) => on.np(nowPs, senders[i]!, readNpTimers + i));
  senders.forEach((q, i) => {
    q.rtoTimer = rtoTimers + i;
    q.readNpTimer = readNpTimers + i;
  });
  return { senders, receivers };
}

/**
 * A requester brought up at run time (a program's QP reaching RTS), its timers registered now,
 * after every timer of the pod's start: a pod without programs keeps every timer id.
 */
export function addSender(host: string, config: QpConfig, out: LinkDirectionConfig, timers: TimerTable, on: QpTimerHandlers, end: QpEnd, index: number, overrides: QpOverrides): SenderQp {
  const q = newSender(host, config, out, end, index, overrides);
  q.rtoTimer = timers.register((nowPs) => on.rto(nowPs, q));
  q.readNpTimer = timers.register((nowPs) => on.np(nowPs, q, q.readNpTimer));
  return q;
}

/** A responder brought up at run time (a program's QP reaching RTR), its timer registered now. */
export function addReceiver(config: QpConfig, out: LinkDirectionConfig, timers: TimerTable, on: QpTimerHandlers, end: QpEnd, overrides: QpOverrides): ReceiverQp {
  let r: ReceiverQp | null = null;
  const timer = timers.register((nowPs) => on.np(nowPs, r!, timer));
  r = newReceiver(config, out, end, timer, overrides);
  return r;
}

function newSender(host: string, config: QpConfig, out: LinkDirectionConfig, end: QpEnd, index: number, o: QpOverrides | null): SenderQp {
  const s = config.settings;
  return {
    index,
    end,
    req: new RcRequester({
      mtu: Math.min(out.mtu, o?.mtu ?? Infinity),
      recovery: s.recovery,
      ackTimeoutPs: s.ackTimeoutPs,
      retryCount: o?.retryCount ?? s.retryCount,
      rnrRetry: o?.rnrRetry ?? s.rnrRetry,
      initialPsn: o?.initialPsn ?? 0,
      ...(o?.maxRdAtomic == null ? {} : { maxRdAtomic: o.maxRdAtomic }),
      ...selectiveRepeatOf(host, config, end),
    }),
    rp: createCongestionControl(s, out.rateBps, config.ccPath ?? null, Math.min(out.mtu, o?.mtu ?? Infinity)),
    ...unpaced(config.dscpMap[end.dscp]!),
    messages: new Map(),
    probe: end.probe,
    firstFlow: null,
    cnps: 0,
    app: end.memory === true ? new Map<number, AppWork>() : null,
    np: null,
    rtoTimer: -1,
    readNpTimer: -1,
  };
}

function newReceiver(config: QpConfig, out: LinkDirectionConfig, end: QpEnd, timer: number, o: QpOverrides | null): ReceiverQp {
  const s = config.settings;
  const srq = o?.srq;
  const resp = new RcResponder({ initialPsn: o?.initialPsn ?? 0, ackEvery: s.ackEvery, nakPolicy: s.nakPolicy, nakIntervalPs: s.nakIntervalPs, rnrTimerCode: s.rnrTimerCode, recovery: s.recovery, mtu: Math.min(out.mtu, o?.mtu ?? Infinity), atomicReplyCache: s.atomicReplyCache, ...(srq === undefined ? {} : { receivePool: srq.pool }) });
  // An application posts its own receives; the built-in traffic has them posted for it.
  if (end.memory !== true) resp.postReceive(s.postedReceives);
  return { timer, end, resp, np: notificationPoint(s), rp: null, ...unpaced(config.dscpMap[end.dscp]!), out: null, writeTarget: null, receives: [], ...(srq === undefined ? {} : { srq }) };
}

/** A requester's selective-repeat parameters (none under go-back). */
function selectiveRepeatOf(host: string, config: QpConfig, end: QpEnd): { selectiveRepeat?: SelectiveRepeatConfig } {
  const s = config.settings;
  if (s.recovery !== 'selectiveRepeat') return {};
  const { bdpCapPackets, rtoLowPs, rtoHighPs, lowRtoBelowPackets } = s.selectiveRepeat;
  const cap = bdpCapPackets ?? config.bdpCapOf?.(end);
  if (cap === undefined) throw new Error(`${host}: selective repeat with bdpCap auto needs the QP's path (bdpCapOf)`);
  return { selectiveRepeat: { bdpCapPackets: cap, rtoLowPs, rtoHighPs, lowRtoBelowPackets } };
}
