export interface AckFeedback { nowPs: number; ackedBytes: number /* cumulative bytes acked on the QP */;
  nextSendBytes: number /* snd_nxt in bytes */; ecnEcho: boolean /* ACK carries CNP/ECE flag */;
  hops: readonly IntHop[] /* HPCC INT, empty otherwise */; sentTsPs: number | null /* TIMELY: the data
  packet's send timestamp echoed */ }
export interface IntHop { qlenBytes: number; txBytes: number; tsPs: number; lineRateBps: number }
export interface CongestionControl { readonly kind: 'dcqcn'|'hpcc'|'timely'|'dctcp';
  rateBps(nowPs: number): number; nextRateChangePs(): number | null; onBytesSent(nowPs: number, bytes: number): void;
  onCnp(nowPs: number): void; onAck(nowPs: number, fb: AckFeedback): void; windowBytes(): number | null }
