/**
 * config.txt → the `nic:` of the imported pod (docs/hpcc-ns3-import.md): the congestion control
 * CC_MODE names with its parameters, the window, ACKs and loss recovery. Each rule cites
 * HPCC's rdma-hw.cc or third.cc.
 */
import { durationText, rateText } from './import-hpcc-graph.js';
import type { ConfigReader } from './import-hpcc-reader.js';

export interface NicImport {
  nic: Record<string, unknown>;
  cc: string;
  payload: number;
  /** L2_BACK_TO_ZERO with its chunk: flows are then posted as messages of `chunk` bytes. */
  chunkMessages: number | null;
}

export function hpccNic(r: ConfigReader): NicImport {
  const ccMode = r.get<number>('CC_MODE', 1);
  const cc = ({ 1: 'dcqcn', 3: 'hpcc', 7: 'timely', 8: 'dctcp' } as Record<number, string>)[ccMode];
  if (ccMode === 10) r.refuse('CC_MODE', '1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP): rocelab has no HPCC-PINT (mode 10)');
  if (cc === undefined) r.refuse('CC_MODE', '1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP), the modes of HPCC rdma-hw.cc');
  if (!r.get('RATE_BOUND', true)) r.refuse('RATE_BOUND', '1: rocelab\'s NIC always paces each QP at its rate (RATE_BOUND 0 sends without a rate limiter)');
  const payload = r.get<number>('PACKET_PAYLOAD_SIZE', 1000);
  if (payload < 256 || payload > 9000) r.refuse('PACKET_PAYLOAD_SIZE', 'a payload of 256..9000 bytes (rocelab\'s MTU range)');
  const rate = (key: string): string | number => {
    if (r.entry(key) === undefined) r.refuse(key, `a rate: third.cc has no usable default for ${key} (DataRate of an empty string)`);
    return rateText(r.get(key, 0));
  };
  const us = (key: string, fallback: number): string => durationText(Math.round(r.get(key, fallback) * 1e6));

  const nic: Record<string, unknown> = { cc };
  const P = ['defaults', 'nic'] as const;
  r.note([...P, 'cc'], `${r.where('CC_MODE')} (HPCC rdma-hw.cc ReceiveAck dispatches on m_cc_mode)`);
  if (cc === 'dcqcn') {
    if (r.entry('RP_TIMER') === undefined) r.refuse('RP_TIMER', 'a rate-increase period in µs: third.cc leaves rp_timer unset');
    // rdma-hw.cc: AlphaResumInterval, RateDecreaseInterval and RPTimer are MicroSeconds(...).
    nic.dcqcn = {
      alphaPeriod: us('ALPHA_RESUME_INTERVAL', 55),
      rateDecreasePeriod: us('RATE_DECREASE_INTERVAL', 4),
      rateIncreaseTimer: us('RP_TIMER', 0),
      g: r.get<number>('EWMA_GAIN', 0),
      fastRecoverySteps: r.get<number>('FAST_RECOVERY_TIMES', 5),
      aiRate: rate('RATE_AI'),
      haiRate: rate('RATE_HAI'),
      minRate: rateText(r.get<number>('MIN_RATE', 100e6)),
      clampTargetRate: r.get('CLAMP_TARGET_RATE', false),
    };
    r.note([...P, 'dcqcn'], `DCQCN (rdma-hw.cc UpdateAlphaMlx, CheckRateDecreaseMlx, RateIncEventTimerMlx): ${['ALPHA_RESUME_INTERVAL', 'RATE_DECREASE_INTERVAL', 'RP_TIMER', 'EWMA_GAIN', 'FAST_RECOVERY_TIMES', 'RATE_AI', 'RATE_HAI', 'MIN_RATE', 'CLAMP_TARGET_RATE'].map((k) => r.where(k)).join('; ')}`);
  }
  if (cc === 'hpcc') {
    if (r.entry('RATE_AI') === undefined) r.refuse('RATE_AI', 'a rate: HPCC\'s additive increase (third.cc has no default)');
    const raiBps = r.get<number>('RATE_AI', 0);
    nic.hpcc = { eta: r.get<number>('U_TARGET', 0.95), maxStage: r.get<number>('MI_THRESH', 5), wai: rateText(raiBps), fastReact: r.get('FAST_REACT', true), multiRate: r.get('MULTI_RATE', true), sampleFeedback: r.get('SAMPLE_FEEDBACK', false) };
    r.note(
      [...P, 'hpcc'],
      `HPCC (rdma-hw.cc UpdateRateHp): eta ← ${r.where('U_TARGET')}; maxStage ← ${r.where('MI_THRESH')}; fastReact ← ${r.where('FAST_REACT')}; multiRate ← ${r.where('MULTI_RATE')}; sampleFeedback ← ${r.where('SAMPLE_FEEDBACK')}; wai ← ${r.where('RATE_AI')} (a rate: the simulator adds m_rai to the reference rate per update; the paper's W_AI in bytes is that rate × T, T = the pod's largest base RTT, third.cc main's maxRtt, which the NIC computes as the simulator does)`,
    );
    const multi = r.get<number>('INT_MULTI', 1);
    if (multi !== 1) r.approx('INT_MULTI', [...P, 'hpcc'], `rocelab's INT carries exact queue lengths and byte counts; the simulator counts them in units of ${multi} B (IntHop::multi)`);
  }
  if (cc === 'timely') {
    nic.timely = { ai: rate('RATE_AI'), hai: rate('RATE_HAI'), minRate: rateText(r.get<number>('MIN_RATE', 100e6)) };
    r.note([...P, 'timely'], `TIMELY (rdma-hw.cc UpdateRateTimely): ai ← ${r.where('RATE_AI')}; hai ← ${r.where('RATE_HAI')} (once m_incStage reaches 5, rdma-hw.cc UpdateRateTimely); minRate ← ${r.where('MIN_RATE')}; config.txt has no key for TimelyAlpha, TimelyBeta, TimelyTLow, TimelyTHigh or TimelyMinRtt, so the profile's values (rdma-hw.cc attribute defaults) apply`);
  }
  if (cc === 'dctcp') {
    nic.dctcp = { g: r.get<number>('EWMA_GAIN', 0), ai: rateText(r.get<number>('DCTCP_RATE_AI', 1e9)), minRate: rateText(r.get<number>('MIN_RATE', 100e6)) };
    r.note([...P, 'dctcp'], `DCTCP (rdma-hw.cc HandleAckDctcp): g ← ${r.where('EWMA_GAIN')}; ai ← ${r.where('DCTCP_RATE_AI')}; minRate ← ${r.where('MIN_RATE')}`);
  }
  const hasWin = r.get<number>('HAS_WIN', 1) !== 0;
  if (hasWin && r.get<number>('GLOBAL_T', 1) !== 1) r.refuse('GLOBAL_T', '1: rocelab\'s window `bytes: auto` is the largest BDP over host pairs (GLOBAL_T 0 gives each pair its own)');
  nic.window = hasWin ? { enabled: true, bytes: 'auto', varWin: r.get('VAR_WIN', false) } : { enabled: false };
  r.note([...P, 'window'], `${r.where('HAS_WIN')}; ${r.where('GLOBAL_T')} (third.cc ScheduleFlowInputs: win = maxBdp); varWin ← ${r.where('VAR_WIN')} (rdma-queue-pair.cc GetWin: the window scaled by rate / line rate)`);

  const ackInterval = r.get<number>('L2_ACK_INTERVAL', 0);
  if (ackInterval === 0) r.refuse('L2_ACK_INTERVAL', 'an ACK interval in bytes ≥ 1 (0 sends no ACK: rdma-hw.cc "shouldn\'t receive ack")');
  const chunk = r.get<number>('L2_CHUNK_SIZE', 0);
  const backToZero = r.get('L2_BACK_TO_ZERO', false);
  if ((backToZero || ackInterval > payload) && chunk === 0) r.refuse('L2_CHUNK_SIZE', 'a chunk size in bytes ≥ 1 (rdma-hw.cc ReceiverCheckSeq divides by it)');
  // rdma-hw.cc ReceiverCheckSeq: an ACK when the next expected byte reaches the milestone, which then grows by L2_ACK_INTERVAL bytes.
  const ackEvery = Math.max(1, Math.round(ackInterval / payload));
  nic.ackEvery = ackEvery;
  r.note([...P, 'ackEvery'], `${r.where('L2_ACK_INTERVAL')}: an ACK per ${ackInterval} B of ${payload} B packets (rdma-hw.cc ReceiverCheckSeq)`);
  if (ackInterval > payload && (ackInterval % payload !== 0 || chunk % ackInterval !== 0)) {
    r.approx('L2_ACK_INTERVAL', [...P, 'ackEvery'], `the simulator also ACKs at each ${chunk} B chunk boundary and its milestone does not fall on packet boundaries; rocelab ACKs every ${ackEvery} packets`);
  }
  nic.recovery = backToZero ? 'goBack0' : 'goBackN';
  r.note([...P, 'recovery'], `${r.where('L2_BACK_TO_ZERO')}: ${backToZero ? `sender and receiver go back to the start of the ${chunk} B chunk (rdma-hw.cc ReceiveAck, ReceiverCheckSeq); each flow is posted as messages of L2_CHUNK_SIZE bytes, so goBack0 goes back to the chunk` : 'resend from the first missing byte (go-back-N); config_doc.txt has the flag the wrong way round (PHYSICS §5)'}`);
  if (backToZero && chunk % payload !== 0) r.approx('L2_CHUNK_SIZE', [...P, 'recovery'], `a chunk of ${chunk} B is not a whole number of ${payload} B packets: rocelab starts a packet at each message, the simulator cuts packets across chunk boundaries`);

  // third.cc main: a non-zero ACK_HIGH_PRIO puts the hosts' ACK queue at index 0, which PAUSE never
  // stops (qbb-net-device.cc GetNextQindex), while switches still admit ACKs on their pg (switch-node.cc SendToDev).
  if (r.get<number>('ACK_HIGH_PRIO', 0) !== 0) {
    nic.ackIgnoresPause = true;
    r.note([...P, 'ackIgnoresPause'], `${r.where('ACK_HIGH_PRIO')}: hosts send ACKs and NACKs while PAUSE holds their priority; switches still count them in the lossless group and drop them when its headroom is full (PHYSICS §1.6)`);
  }

  return { nic, cc: cc!, payload, chunkMessages: backToZero ? chunk : null };
}
