/**
 * The host's end of a native program's channel (issue 25; the protocol is proto.ts): starts the
 * program with librocelab preloaded and the channel as fd 3, in a bubblewrap sandbox with an
 * environment of its own (sandbox.ts, docs/native-programs.md), hands the engine its requests one at a time,
 * and sends back the engine's replies.
 *
 * next() is synchronous on purpose. The program runs in lockstep with its host's engine: virtual
 * time stands still while the program computes and moves only while it waits for a reply. So while
 * the program runs, the engine must not run anything at all (no event, no window of the pod), and
 * the simplest way to hold it is to block its thread in next() until the program asks something.
 * The output goes to files, not pipes, for the same reason: the host's event loop does not turn
 * while it waits, so nothing would drain a pipe, and a program that printed 64 KiB would block
 * forever in write() instead of sending its next request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, lstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { binding, type NativeBinding } from './binding.js';
import { nativeDist, nativeLibDir } from './index.js';
import { Exit, Hdr, RL, RL_MAX_MESSAGE, encodeReply, rlTypeName } from './proto.js';
import { COVERED, programEnvironment, programSandbox, sandboxArgs, sandboxHidden, sandboxRefusal, type Sandbox } from './sandbox.js';

/** The descriptor a program finds its channel on (ROCELAB_CHANNEL_FD). */
export const CHANNEL_FD = 3;
/** How much of a program's stdout and of its stderr is kept: the end of each. */
export const OUTPUT_TAIL_BYTES = 64 * 1024;

export interface ProgramOptions {
  /** The executable (a path, or a name looked up in PATH) and its arguments. */
  argv: readonly string[];
  /** The topology's env and the device's identity: a program's environment is these and a few fixed ones (sandbox.ts's programEnvironment), never the member's. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** How to run it (default: programSandbox(), bwrap unless the user opted out). */
  sandbox?: Sandbox;
}

/** One request from the program: its type (proto.ts's RL), its body (after the rl_hdr), and the descriptor that came with it (-1 if none; the caller owns it). */
export interface Request {
  type: number;
  body: Uint8Array;
  fd: number;
}

export interface ProgramExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last OUTPUT_TAIL_BYTES of each. */
  stdout: string;
  stderr: string;
  /** Why it never ran (spawn failed: ENOENT, EACCES), when it did not. */
  error?: string;
}

/** A program's channel misbehaved: it did not ask within the timeout, or sent a malformed packet. */
export class ProgramChannelError extends Error {
  constructor(
    readonly code: 'ETIMEDOUT' | 'proto',
    message: string,
  ) {
    super(message);
    this.name = 'ProgramChannelError';
  }
}

/** How the program ended, as its launcher said on the channel (RL_EXIT), at the instant it closed it. */
export interface LaunchExit {
  code: number | null;
  signal: string | null;
  /** Why it never ran (exec failed), or null. */
  error: string | null;
}

export class ProgramChannel {
  readonly pid: number | undefined = undefined;
  private launchExit: LaunchExit | null = null;
  private finalOutput: { stdout: string; stderr: string } | null = null;
  private readonly outFile: string;
  private readonly errFile: string;
  /** The end of its output as it exited: its files are gone then. */
  /** Resolves once the program ended (never rejects), with its status and the end of its output. */
  readonly exited: Promise<ProgramExit>;
  private readonly native: NativeBinding;
  private readonly child: ChildProcess | null;
  /** Run in bwrap: two launchers, the inner one's RL_EXIT first (sandbox.ts). */
  private readonly sandboxed: boolean;
  private exits = 0;
  private readonly name: string;
  private readonly rx = new Uint8Array(RL_MAX_MESSAGE);
  private hostFd: number;
  /** The type of the request awaiting its reply, or null: exactly one reply per request, in order. */
  private pending: number | null = null;
  private peerGone = false;
  private ended = false;

  constructor(options: ProgramOptions) {
    const [file, ...args] = options.argv;
    if (file === undefined) throw new Error('ProgramChannel: expected argv with at least the program, got []');
    this.native = binding();
    this.name = basename(file);
    const sandbox = options.sandbox ?? programSandbox();
    this.sandboxed = sandbox.kind === 'bwrap';
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-program-'));
    const outFile = join(dir, 'stdout');
    const errFile = join(dir, 'stderr');
    this.outFile = outFile;
    this.errFile = errFile;
    if (sandbox.kind === 'unavailable') {
      // Never run unsandboxed by default: the program fails, with what is missing and the way out.
      this.hostFd = -1;
      this.child = null;
      this.launchExit = { code: null, signal: null, error: sandboxRefusal(sandbox.why) };
      this.finalOutput = { stdout: '', stderr: '' };
      this.ended = true;
      rmSync(dir, { recursive: true, force: true });
      this.exited = Promise.resolve({ code: null, signal: null, stdout: '', stderr: '', error: this.launchExit.error! });
      return;
    }
    const [hostFd, childFd] = this.native.socketpair();
    this.hostFd = hostFd;
    const out = openSync(outFile, 'w');
    const err = openSync(errFile, 'w');
    const launcher = join(nativeDist(), 'bin', 'rocelab-launch');
    // The launcher (rocelab-launch) puts the device in place for the program only, waits for it and
    // says how it ended on the channel; it leads a process group of its own, killed as one.
    const channel = { ROCELAB_CHANNEL_FD: String(CHANNEL_FD), ROCELAB_CHILD_LIBRARY_PATH: nativeLibDir(), ROCELAB_CHILD_PRELOAD: join(nativeLibDir(), 'librocelab.so') };
    let command: string[];
    let env: Record<string, string>;
    let cwd: string | undefined = options.cwd;
    if (sandbox.kind === 'bwrap') {
      // Outside, the launcher only waits for bwrap; inside, a second one starts the program (sandbox.ts).
      const home = homedir();
      const programCwd = options.cwd ?? process.cwd();
      const reveal = [...new Set([nativeDist(), programCwd, ...(file.includes('/') ? [dirname(file)] : [])])].sort((a, b) => a.length - b.length);
      const cover = [...new Set([...COVERED, tmpdir()])].filter(isDirectory);
      const inner = programEnvironment({ memberEnv: process.env, home, env: options.env ?? {}, channel });
      command = [sandbox.bwrap, ...sandboxArgs({ argv: [launcher, file, ...args], cwd: programCwd, cover, home, hide: sandboxHidden(process.env), reveal, env: inner })];
      env = { PATH: inner['PATH']!, ROCELAB_CHANNEL_FD: String(CHANNEL_FD) };
      cwd = '/';
    } else {
      command = [file, ...args];
      env = programEnvironment({ memberEnv: process.env, home: process.env['HOME'] ?? homedir(), env: options.env ?? {}, channel });
    }
    try {
      this.child = spawn(launcher, command, { cwd, env, stdio: ['ignore', out, err, childFd], detached: true });
    } catch (e) {
      this.native.close(hostFd);
      rmSync(dir, { recursive: true, force: true });
      throw e;
    } finally {
      // The child holds its own copies now; with the parent's end of childFd closed, the program's
      // exit is the channel's EOF.
      closeSync(out);
      closeSync(err);
      this.native.close(childFd);
    }
    const child = this.child;
    this.pid = child.pid;
    this.exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null, error?: string): void => {
        if (this.ended) return;
        this.ended = true;
        const result: ProgramExit = { code, signal, stdout: tail(outFile), stderr: tail(errFile) };
        // The files go with the program; what they said stays readable (a member's report comes later).
        this.finalOutput = { stdout: result.stdout, stderr: result.stderr };
        if (error !== undefined) result.error = error;
        rmSync(dir, { recursive: true, force: true });
        resolve(result);
      };
      child.once('exit', (code, signal) => finish(code, signal));
      // Only a spawn that failed ends the program here; an error from kill() on a live one does not.
      child.on('error', (e) => {
        if (child.pid === undefined) finish(null, null, `cannot start ${file}: ${e.message}`);
      });
    });
  }

  /**
   * Blocks until the program's next request; null once it closed its channel (it exited, or was
   * killed). Throws ProgramChannelError 'ETIMEDOUT' when none came within `timeoutMs` (wall time: a
   * guard against a hung program, never a decision of the run), or 'proto' for a malformed packet.
   */
  next(timeoutMs: number): Request | null {
    if (this.pending !== null) throw new Error(`ProgramChannel ${this.where()}: next() before the reply to ${rlTypeName(this.pending)} (one reply per request, in order)`);
    if (this.hostFd < 0) return null;
    let got;
    try {
      got = this.native.recv(this.hostFd, this.rx, timeoutMs);
    } catch (e) {
      if ((e as { code?: string }).code === 'ETIMEDOUT') throw new ProgramChannelError('ETIMEDOUT', `program ${this.where()}: expected a request on its channel within ${timeoutMs} ms, got none (is it blocked outside rocelab, in a call rocelab0 does not interpose?)`);
      throw e;
    }
    if (got.bytes === 0) {
      if (got.fd >= 0) this.native.close(got.fd);
      this.close();
      if (this.sandboxed && this.exits === 1 && this.launchExit !== null && this.launchExit.error === null) {
        // Only the outer launcher spoke: the inner one never ran, or died before its program.
        const said = this.stderr().trim().split('\n').filter((l) => l.startsWith('bwrap:')).pop();
        this.launchExit = { code: null, signal: null, error: `the program's sandbox (bwrap) ended ${this.launchExit.signal !== null ? `by ${this.launchExit.signal}` : `with code ${this.launchExit.code}`} without word of the program${said === undefined ? ' (it killed its launcher, or bwrap failed)' : `: ${said}`}` };
      }
      return null;
    }
    const hdr = got.bytes >= Hdr.size ? Hdr.decode(this.rx) : null;
    if (hdr === null || hdr.len !== got.bytes) {
      if (got.fd >= 0) this.native.close(got.fd);
      throw new ProgramChannelError('proto', `program ${this.where()}: expected a request whose rl_hdr.len is its size, got ${got.bytes} bytes${hdr === null ? '' : ` saying ${hdr.len} (${rlTypeName(hdr.type)})`}`);
    }
    if (hdr.type === RL.EXIT) {
      // The launcher's last word: the program ended. It is not answered; EOF follows.
      const e = Exit.decode(this.rx, Hdr.size);
      // Sandboxed, the inner launcher speaks first and knows the signal; the outer one only has bwrap's exit code.
      this.exits++;
      if (this.exits === 1) this.launchExit = { code: e.code < 0 ? null : e.code, signal: e.signal === 0 ? null : signalName(e.signal), error: e.error === '' ? null : e.error };
      return this.next(timeoutMs);
    }
    this.pending = hdr.type;
    return { type: hdr.type, body: this.rx.slice(Hdr.size, got.bytes), fd: got.fd };
  }

  /**
   * Answers the request next() returned: its type, an errno (0: success), the host's virtual time
   * now, and the body. False when the program is gone (its next next() returns null).
   */
  reply(type: number, err: number, nowPs: bigint, body?: Uint8Array): boolean {
    if (this.pending === null) throw new Error(`ProgramChannel ${this.where()}: a reply (${rlTypeName(type)}) without a request`);
    if (this.pending !== type) throw new Error(`ProgramChannel ${this.where()}: a reply of type ${rlTypeName(type)} to ${rlTypeName(this.pending)}`);
    this.pending = null;
    if (this.hostFd < 0 || this.peerGone) return false;
    try {
      this.native.send(this.hostFd, encodeReply(type, err, nowPs, body));
      return true;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EPIPE' || code === 'ECONNRESET') {
        this.peerGone = true;
        return false;
      }
      throw e;
    }
  }

  /** SIGKILL to the launcher's process group, the program with it (nothing if it already ended). Its channel then reads EOF. */
  kill(): void {
    if (this.ended || this.child === null || this.child.pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** How the program ended, once its channel read EOF after the launcher's RL_EXIT; null before, or if the launcher died first. */
  exitStatus(): LaunchExit | null {
    return this.launchExit;
  }

  /** The end of its stdout and stderr so far (files: readable while the host waits; kept once the program ended). */
  stdout(): string {
    return this.finalOutput?.stdout ?? tail(this.outFile);
  }

  stderr(): string {
    return this.finalOutput?.stderr ?? tail(this.errFile);
  }

  /**
   * Forgets the request awaiting its reply: the program ended while that request waited (another of
   * its threads exited the process), so next() may read the launcher's RL_EXIT and the EOF.
   */
  abandon(): void {
    this.pending = null;
  }

  /** Releases the host's end of the channel (next() does once it reads EOF). */
  close(): void {
    if (this.hostFd < 0) return;
    const fd = this.hostFd;
    this.hostFd = -1;
    this.pending = null;
    this.native.close(fd);
  }

  private where(): string {
    return `${this.name} (pid ${this.pid ?? 'none'})`;
  }
}

/**
 * The channel of one more thread of a program (RL_THREAD_NEW passed the host's end): requests and
 * replies as on the program's own channel. A thread that ended says RL_THREAD_EXIT (returned by
 * next(), never answered); an EOF without it means the whole program is gone.
 */
export class ThreadChannel {
  private readonly native: NativeBinding = binding();
  private readonly rx = new Uint8Array(RL_MAX_MESSAGE);
  private pending: number | null = null;

  constructor(
    private fd: number,
    private readonly name: string,
  ) {}

  /** Blocks until the thread's next request; null at EOF. Throws ProgramChannelError like ProgramChannel.next(). */
  next(timeoutMs: number): Request | null {
    if (this.pending !== null) throw new Error(`ThreadChannel ${this.name}: next() before the reply to ${rlTypeName(this.pending)} (one reply per request, in order)`);
    if (this.fd < 0) return null;
    let got;
    try {
      got = this.native.recv(this.fd, this.rx, timeoutMs);
    } catch (e) {
      if ((e as { code?: string }).code === 'ETIMEDOUT') throw new ProgramChannelError('ETIMEDOUT', `${this.name}: expected a request on its channel within ${timeoutMs} ms, got none (is it blocked outside rocelab: a mutex, a condition variable or a pipe between threads?)`);
      throw e;
    }
    if (got.bytes === 0) {
      if (got.fd >= 0) this.native.close(got.fd);
      this.close();
      return null;
    }
    const hdr = got.bytes >= Hdr.size ? Hdr.decode(this.rx) : null;
    if (hdr === null || hdr.len !== got.bytes) {
      if (got.fd >= 0) this.native.close(got.fd);
      throw new ProgramChannelError('proto', `${this.name}: expected a request whose rl_hdr.len is its size, got ${got.bytes} bytes`);
    }
    this.pending = hdr.type === RL.THREAD_EXIT ? null : hdr.type;
    return { type: hdr.type, body: this.rx.slice(Hdr.size, got.bytes), fd: got.fd };
  }

  reply(type: number, err: number, nowPs: bigint, body?: Uint8Array): boolean {
    if (this.pending !== type) throw new Error(`ThreadChannel ${this.name}: a reply of type ${rlTypeName(type)} to ${this.pending === null ? 'no request' : rlTypeName(this.pending)}`);
    this.pending = null;
    if (this.fd < 0) return false;
    try {
      this.native.send(this.fd, encodeReply(type, err, nowPs, body));
      return true;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EPIPE' || code === 'ECONNRESET') return false;
      throw e;
    }
  }

  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    this.pending = null;
    this.native.close(fd);
  }
}

const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE', 9: 'SIGKILL', 10: 'SIGUSR1', 11: 'SIGSEGV', 12: 'SIGUSR2', 13: 'SIGPIPE', 14: 'SIGALRM', 15: 'SIGTERM' };

function signalName(n: number): string {
  return SIGNALS[n] ?? `signal ${n}`;
}

/** A real directory (not a symlink: /var/run is often one to /run). */
function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The last OUTPUT_TAIL_BYTES of a file, as text. */
function tail(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, OUTPUT_TAIL_BYTES);
    const buf = Buffer.alloc(n);
    let at = 0;
    while (at < n) {
      const r = readSync(fd, buf, at, n - at, size - n + at);
      if (r === 0) break;
      at += r;
    }
    return buf.subarray(0, at).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
