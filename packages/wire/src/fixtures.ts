/**
 * Sample envelopes with a non-default value in every field, for the tests and the codec
 * benchmark. Not exported from the package.
 */
import { FrameKind, Opcode, newFrame, pfcFrame, type Frame } from './frame.js';
import type { Envelope, LinkBatch, PairBatch } from './messages.js';

const BIG = 2 ** 40 + 12_345; // a 64-bit value above 2^32

/** A data frame with every field set to a distinct non-default value. */
export function sampleDataFrame(i = 0): Frame {
  return newFrame(FrameKind.data, {
    srcMac: 0x02_00_00_00_00_01 + i,
    dstMac: 0xfe_dc_ba_98_76_54,
    srcIp: 0x0a_00_01_0b,
    dstIp: 0xff_ff_ff_fe,
    dscp: 26,
    ecn: 2,
    ipId: 0xfffe - i,
    ttl: 63,
    udpSrcPort: 49_152 + i,
    udpDstPort: 100,
    opcode: Opcode.writeFirst,
    destQp: 0xff_ff_ff,
    psn: 0xab_cd_ef - i,
    ackReq: true,
    becn: true,
    syndrome: 0x60,
    msn: 0x12_34_56,
    sackPsn: 0xab_cd_00,
    dmaLength: 4_000_000_000,
    payloadBytes: 1024,
    pfcEnable: 0x08,
  });
}

export function samplePfcFrame(): Frame {
  return pfcFrame(0b1000_1001, [0xffff, 1, 2, 3, 0, 5, 6, 0x8000]);
}

/** A batch of `n` frames (every fourth a PFC frame) with its parallel arrays. */
export function sampleBatch(n: number): LinkBatch {
  const frames: Frame[] = [];
  for (let i = 0; i < n; i++) frames.push(i % 4 === 3 ? samplePfcFrame() : sampleDataFrame(i));
  return {
    lease: 4_000_000_000,
    window: 127,
    frames,
    arrivalPs: frames.map((_, i) => BIG + i * 221_200),
    originSeq: frames.map((_, i) => 2 ** 33 + i),
    fcsBad: frames.map((_, i) => i % 2 === 1),
  };
}

/** A pair's message: links 0 and 3 carried frames this window, the others (idle) are absent. */
export function samplePair(): PairBatch {
  const strip = ({ lease: _lease, window: _window, ...frames }: LinkBatch) => frames;
  return { lease: 4_000_000_000, window: 127, links: [{ link: 0, ...strip(sampleBatch(5)) }, { link: 3, ...strip(sampleBatch(2)) }] };
}

/** Its spec as runtime fault-wire.ts writes one (the wire only bounds its size). */
const fault = { id: 7, atPs: BIG, kind: 'linkDown', target: 'tor1:p9', spec: '{"at":"1ms","kind":"linkDown","link":"tor1:p9","for":"1us"}' };

/** One envelope of every type, every field non-default. */
export function sampleEnvelopes(): Envelope[] {
  return [
    {
      type: 'hello',
      hello: {
        protocolVersion: 1,
        node: 'tor1',
        role: 'tor',
        nonce: new Uint8Array([1, 2, 3, 255]),
        proof: new Uint8Array(32).fill(0xab),
        link: 'h1:p0--tor1:p1',
        nodes: ['h1', 'tor1', 'spine1'],
        linkUrl: 'ws://127.0.0.1:40123/link',
        metricsUrls: ['http://127.0.0.1:9101/metrics', 'http://127.0.0.1:9102/metrics', 'http://127.0.0.1:9103/metrics'],
      },
    },
    { type: 'batch', batch: sampleBatch(5) },
    {
      type: 'directory',
      directory: {
        members: [
          { id: 'm0', nodes: ['h1', 'h2'], linkUrl: 'ws://127.0.0.1:40001' },
          { id: 'm1', nodes: ['tor1'], linkUrl: 'ws://127.0.0.1:40002' },
        ],
        windowPs: 1_016_800,
        seed: 2 ** 52 + 1,
        runId: 'run-ü-1',
        rejoin: true,
      },
    },
    {
      type: 'grant',
      grant: {
        lease: 9,
        startPs: BIG,
        windowPs: 1_016_800,
        windows: 128,
        endPs: BIG + 128 * 1_016_800,
        final: true,
        faults: [fault, { ...fault, id: 8, kind: 'impair' }],
        linksDown: ['h1:p0>tor1:p1', 'tor1:p1>h1:p0'],
        losses: [{ link: 'tor1:p9>spine1:p1', frames: 2 ** 35 }],
        linksUp: ['h2:p0--tor1:p2'],
        membersLost: ['h3'],
        membersJoined: ['h2'],
      },
    },
    {
      type: 'report',
      report: {
        lease: 9,
        hasNextEvent: true,
        nextEventPs: BIG * 3,
        nodes: [
          {
            node: 'h1',
            hash: new Uint8Array(32).fill(7),
            events: 2 ** 34,
            stats: {
              sent: 2 ** 33,
              delivered: 17,
              queued: 3,
              dropped: { buffer: 5, causality: 2 ** 36 },
              causalityViolations: 1,
              rssBytes: 123_456_789_012,
              pssBytes: 23_456_789,
              resultsJson: '{"sent":[],"probes":{"sent":1,"failed":0,"pending":0,"rttPs":{"h2":[9000]},"rttOmitted":0}}',
              reportJson: '{"node":"h1","role":"host","ports":[],"host":null}',
            },
          },
          { node: 'tor1', hash: new Uint8Array([9]), events: 1, stats: null },
        ],
        links: [
          { link: 'h1:p0>tor1:p1', sender: true, frames: 2 ** 41 },
          { link: 'tor1:p1>h1:p0', sender: false, frames: 12 },
        ],
        linksFailed: ['tor1:p9>spine1:p1'],
        linkTotals: [{ link: 'h1:p0>tor1:p1', sender: true, frames: 2 ** 42 }],
        linkMessages: 2 ** 36,
        linkBytes: 2 ** 47,
      },
    },
    { type: 'fault', fault },
    {
      type: 'status',
      status: {
        virtualPs: BIG,
        dilation: 0.25,
        windowsPerSecond: 12_345.5,
        nodesUp: 25,
        nodesTotal: 26,
        lagSeconds: -0.5,
        state: 'running',
        windows: 2 ** 40,
      },
    },
    { type: 'goodbye', goodbye: { reason: 'run finished' } },
    { type: 'pair', pair: samplePair() },
  ];
}
