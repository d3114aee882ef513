import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { binding, bindingPath } from './binding.js';
import { ProgramChannel, ProgramChannelError, type Request } from './channel.js';
import { nativeDist, nativeLibDir } from './index.js';
import { Hello, HelloRep, RL, RegMr, RegMrRep, Time, decodeExact, decodeText, rlTypeName } from './proto.js';

const PROBE = join(nativeDist(), 'test', 'channel-probe');
const built = existsSync(bindingPath()) && existsSync(join(nativeLibDir(), 'librocelab.so')) && existsSync(PROBE);
const skip = !built && 'the native parts are not built (npm run build needs gcc and the -dev packages)';

const HOST = { ip: 0x0a000001, mtu: 3, mac: 0x020000000001, linkBps: 100e9, tscKhz: 2_500_000, hostIndex: 3, node: 'h1' };

/** The device's own log lines at load (the TSC rewrite counts its sites): answered, not the probe's. */
function isDeviceLog(r: Request): boolean {
  return r.type === RL.LOG && /^(tsc|spin detector):/.test(decodeText(r.body));
}

/** The virtual time of the last reply to each channel: a device log line is answered at it (time never goes back). */
const lastNow = new WeakMap<ProgramChannel, bigint>();

/** The probe's next request, past the device's own log lines. */
function nextOfProbe(ch: ProgramChannel, timeoutMs: number): Request | null {
  for (;;) {
    const r = ch.next(timeoutMs);
    if (r === null || !isDeviceLog(r)) return r;
    ch.reply(r.type, 0, lastNow.get(ch) ?? 0n);
  }
}

/** Plays the host: answers each request with `handle`, records what came, stops at EOF (bounded). */
function serve(ch: ProgramChannel, handle: (r: Request) => { err?: number; nowPs: bigint; body?: Uint8Array }): string[] {
  const seen: string[] = [];
  for (let i = 0; i < 50; i++) {
    const r = nextOfProbe(ch, 10_000);
    if (r === null) return seen;
    seen.push(rlTypeName(r.type));
    const { err = 0, nowPs, body } = handle(r);
    lastNow.set(ch, nowPs);
    ch.reply(r.type, err, nowPs, body);
  }
  throw new Error('the probe asked more than 50 times');
}

function lines(text: string): Record<string, string> {
  return Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

test('a program asks in lockstep: HELLO, a log line, a wait until 5 us, and reads the virtual time of each reply', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [PROBE, 'basic'] });
  const logs: string[] = [];
  let now = 1000n;
  const seen = serve(ch, (r) => {
    switch (r.type) {
      case RL.HELLO: {
        // The program's own PID: rocelab-launch (ch.pid) runs it as its child.
        const hello = decodeExact(Hello, r.body, r.type);
        assert.equal(hello.version, 1);
        assert.ok(hello.pid > 0 && hello.pid !== ch.pid);
        return { nowPs: now, body: HelloRep.encode(HOST) };
      }
      case RL.LOG:
      case RL.UNSUPPORTED:
        logs.push(`${rlTypeName(r.type)} ${decodeText(r.body)}`);
        return { nowPs: now };
      case RL.SLEEP_UNTIL:
        now = decodeExact(Time, r.body, r.type).ps;
        return { nowPs: now };
      default:
        return { err: 95, nowPs: now };
    }
  });
  assert.deepEqual(seen, ['RL_HELLO', 'RL_LOG', 'RL_SLEEP_UNTIL', 'RL_LOG', 'RL_UNSUPPORTED']);
  assert.deepEqual(logs, ['RL_LOG probe 42 says hello', 'RL_LOG ibv_probe_thing is not supported by rocelab0', 'RL_UNSUPPORTED ibv_probe_thing']);
  assert.equal(ch.next(1000), null, 'EOF stays EOF');
  assert.throws(() => ch.reply(RL.LOG, 0, now), /a reply \(RL_LOG\) without a request/);
  const exit = await ch.exited;
  assert.equal(exit.code, 0, exit.stderr);
  const out = lines(exit.stdout);
  assert.equal(out.attached, '1');
  assert.equal(out.node, 'h1 ip=0a000001 mac=020000000001 mtu=3 link_bps=100000000000 host_index=3');
  assert.equal(out.tsc_mhz, '2500.000');
  assert.equal(out.start_ps, '1000');
  assert.equal(out.after_sleep_ps, '5000000');
  assert.equal(out.after_past_sleep_ps, '5000000', 'a wait for an instant already reached asks nothing');
  assert.equal(out.unsupported, '95');
});

test('a registered memfd is the same memory on both sides: the host reads hello and writes world in place', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [PROBE, 'mr'] });
  let hostSaw = '';
  const seen = serve(ch, (r) => {
    if (r.type === RL.HELLO) return { nowPs: 0n, body: HelloRep.encode(HOST) };
    assert.equal(r.type, RL.REG_MR);
    assert.ok(r.fd >= 0, 'the memfd came with the request');
    const mr = decodeExact(RegMr, r.body, r.type);
    assert.equal(mr.length, 6);
    const mem = new Uint8Array(binding().mapShared(r.fd, mr.mapLength));
    hostSaw = Buffer.from(mem.subarray(0, 5)).toString();
    mem.set(Buffer.from('world\0'));
    return { nowPs: 2000n, body: RegMrRep.encode({ handle: 7, lkey: 0x100, rkey: 0x200 }) };
  });
  assert.deepEqual(seen, ['RL_HELLO', 'RL_REG_MR']);
  assert.equal(hostSaw, 'hello');
  const exit = await ch.exited;
  assert.equal(exit.code, 0, exit.stderr);
  assert.match(exit.stdout, /reg_mr err=0 len=16 handle=7 lkey=256 rkey=512/);
  assert.equal(lines(exit.stdout).sees, 'world');
  assert.equal(lines(exit.stdout).now_ps, '2000');
});

test('a program that asks nothing within the timeout is an ETIMEDOUT error; killed, its channel reads EOF', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [PROBE, 'hang'] });
  const hello = nextOfProbe(ch, 10_000);
  assert.equal(hello?.type, RL.HELLO);
  ch.reply(RL.HELLO, 0, 0n, HelloRep.encode(HOST));
  assert.throws(
    () => nextOfProbe(ch, 100),
    (e: unknown) => e instanceof ProgramChannelError && e.code === 'ETIMEDOUT' && /^program channel-probe \(pid \d+\): expected a request on its channel within 100 ms, got none/.test(e.message),
  );
  ch.kill();
  assert.equal(ch.next(10_000), null);
  const exit = await ch.exited;
  assert.equal(exit.signal, 'SIGKILL');
  assert.equal(exit.stdout, 'hanging\n');
});

test('a program whose host closes the channel says so and exits 70 at once', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [PROBE, 'basic'] });
  assert.equal(nextOfProbe(ch, 10_000)?.type, RL.HELLO);
  ch.close();
  const exit = await ch.exited;
  assert.equal(exit.code, 70);
  assert.match(exit.stderr, /^rocelab: channel-probe \(pid \d+\): its host closed the channel; exiting 70: a program cannot run without its host\n$/);
  assert.equal(exit.stdout, '');
});

test('a program that cannot start: its channel reads EOF and its launcher says why', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [join(nativeDist(), 'no-such-program')] });
  assert.equal(ch.next(10_000), null);
  assert.match(ch.exitStatus()?.error ?? '', /^cannot run .*no-such-program: No such file or directory$/);
  const exit = await ch.exited;
  assert.equal(exit.code, 127, 'the launcher exits as a shell would');
});

test('without ROCELAB_CHANNEL_FD a program runs detached, librocelab preloaded or not', { skip }, () => {
  for (const preload of [true, false]) {
    const env: NodeJS.ProcessEnv = { ...process.env, ...(preload ? { LD_PRELOAD: join(nativeLibDir(), 'librocelab.so') } : {}) };
    delete env.ROCELAB_CHANNEL_FD;
    const run = spawnSync(PROBE, ['basic'], { env, encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'attached=0\nhost=none\ntsc_mhz=2000.000\n');
  }
});

test('the binding: SEQPACKET keeps packets apart, a cut packet is EMSGSIZE, a timeout ETIMEDOUT, a closed peer EOF and EPIPE', { skip }, () => {
  const b = binding();
  const [a, c] = b.socketpair();
  try {
    b.send(c, new Uint8Array([1, 2, 3]));
    b.send(c, new Uint8Array([4]));
    const buf = new Uint8Array(16);
    assert.deepEqual(b.recv(a, buf, 1000), { bytes: 3, fd: -1 });
    assert.deepEqual([...buf.subarray(0, 3)], [1, 2, 3]);
    assert.deepEqual(b.recv(a, buf, 1000), { bytes: 1, fd: -1 });
    assert.throws(() => b.recv(a, buf, 20), { code: 'ETIMEDOUT' });
    b.send(c, new Uint8Array(32));
    assert.throws(() => b.recv(a, buf, 1000), { code: 'EMSGSIZE' });
    assert.throws(() => b.recv(-1 as number, buf, 0), TypeError);
  } finally {
    b.close(c);
  }
  assert.deepEqual(binding().recv(a, new Uint8Array(4), 1000), { bytes: 0, fd: -1 });
  assert.throws(() => b.send(a, new Uint8Array(1)), { code: 'EPIPE' });
  b.close(a);
});

test('its output stays readable once it exited and its files are gone (a member in procs reports after that)', { skip }, async () => {
  const ch = new ProgramChannel({ argv: [PROBE, 'basic'] });
  let now = 1000n;
  serve(ch, (r) => {
    if (r.type === RL.HELLO) return { nowPs: now, body: HelloRep.encode(HOST) };
    if (r.type === RL.SLEEP_UNTIL) now = decodeExact(Time, r.body, r.type).ps;
    return r.type === RL.LOG || r.type === RL.SLEEP_UNTIL || r.type === RL.UNSUPPORTED ? { nowPs: now } : { err: 95, nowPs: now };
  });
  const exit = await ch.exited;
  assert.equal(exit.code, 0, exit.stderr);
  assert.equal(lines(exit.stdout).after_sleep_ps, '5000000');
  assert.deepEqual([ch.stdout(), ch.stderr()], [exit.stdout, exit.stderr]);
});
