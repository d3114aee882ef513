#!/usr/bin/env node
// Quick codec benchmark (not part of the test suite): encode + decode of `batch` envelopes, the
// hot path of every inter-process link, on one core. Run after a build:
//   node packages/wire/scripts/bench-codec.mjs [framesPerBatch=5] [seconds=2]
// Prints one JSON line per case: `every-field` sets all 21 frame fields to large values (the
// worst case); `typical` is data frames in the middle of a WRITE plus one ACK.
import { FrameKind, Opcode, decodeEnvelope, encodeEnvelope, newFrame } from '../dist/index.js';
import { sampleBatch } from '../dist/fixtures.js';

const framesPerBatch = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 2);

function typicalBatch(n) {
  const frames = [];
  for (let i = 0; i < n; i++) {
    const ack = i === n - 1;
    frames.push(newFrame(ack ? FrameKind.ack : FrameKind.data, {
      srcMac: 0x02_00_00_00_01_0b, dstMac: 0x02_00_00_00_01_01, srcIp: 0x0a_00_01_0b, dstIp: 0x0a_00_02_0c,
      dscp: 26, ecn: 2, ipId: 1000 + i, udpSrcPort: 49_200, destQp: 17, psn: 5000 + i,
      opcode: ack ? Opcode.acknowledge : Opcode.writeMiddle, payloadBytes: ack ? 0 : 1024, msn: ack ? 3 : 0,
    }));
  }
  return {
    lease: 12, window: 40, frames,
    arrivalPs: frames.map((_, i) => 5_000_000_000 + i * 221_200),
    originSeq: frames.map((_, i) => 90_000 + i),
    fcsBad: frames.map(() => false),
  };
}

function measure(name, batch) {
  const env = { type: 'batch', batch };
  const run = (iterations) => {
    let sink = 0;
    for (let i = 0; i < iterations; i++) {
      const back = decodeEnvelope(encodeEnvelope(env));
      sink += back.type === 'batch' ? back.batch.frames.length : 0;
    }
    return sink;
  };
  run(20_000); // warm up: let V8 optimize before timing
  let iterations = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    run(10_000);
    iterations += 10_000;
  }
  const elapsedS = (performance.now() - start) / 1000;
  console.log(JSON.stringify({
    case: name,
    framesPerBatch,
    messageBytes: encodeEnvelope(env).length,
    messagesPerSec: Math.round(iterations / elapsedS),
    framesPerSec: Math.round((iterations * framesPerBatch) / elapsedS),
  }));
}

measure('every-field', sampleBatch(framesPerBatch));
measure('typical', typicalBatch(framesPerBatch));
