import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { memberLog } from './member.js';

function capture(base: Record<string, unknown>): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString().trim()), done()) });
  return { log: pino({ base }, sink), lines };
}

test("a member's log lines name it once, whether or not its process's logger already does", () => {
  for (const base of [{ member: 'h16' }, {}]) {
    const { log, lines } = capture(base);
    memberLog(log, 'h16').info('joined');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.match(/"member":/g)?.length, 1, lines[0]);
    assert.equal(JSON.parse(lines[0]!).member, 'h16');
  }
});
