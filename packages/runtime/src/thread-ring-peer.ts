/** The other thread of `thread-ring.test.ts`: answers each message with the sum of its bytes; an empty one ends it. */
import { workerData } from 'node:worker_threads';
import { ThreadRing, type RingMemory } from './thread-ring.js';

const { memory, back } = workerData as { memory: RingMemory; back: RingMemory };
const ring = new ThreadRing(memory);
const answers = new ThreadRing(back);
for (let i = 0; i < 10_000; i++) {
  const mark = ring.writtenMark;
  const m = ring.read();
  if (m === null) {
    if (!ring.waitForData(mark, 5_000)) throw new Error('the test thread wrote nothing for 5 s');
    continue;
  }
  if (m.length === 0) break;
  const answer = new Uint8Array(4);
  new DataView(answer.buffer).setUint32(0, m.reduce((a, b) => a + b, 0), true);
  answers.write(answer);
}
