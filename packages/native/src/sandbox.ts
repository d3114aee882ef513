/**
 * What a native program can reach (issue 25; docs/native-programs.md says it for users). A
 * program comes with a topology, and a topology may come from someone else: like an app, it must
 * not reach the host, the pod token or the wall clock. An app is held by the JS sandbox; a native
 * program is a process of the user's, so it is held by bubblewrap (bwrap) instead: a read-only view
 * of the machine, with the places that hold secrets or writable state (/tmp, /run, the user's
 * home, the pod's private directories) covered by empty ones; no network but its own loopback (its
 * pod sockets go through the channel); its own PID, IPC and UTS namespaces; no capabilities; and
 * an environment of its own, never the member's.
 *
 * The launcher runs twice: outside, as the member's child (it dies with the member, and says how
 * the sandbox ended if it never started the program), and inside, as the program's parent (it puts
 * the device in place and says how the program ended, signal included: bwrap itself only gives
 * 128 + the signal as an exit code).
 *
 * The functions that decide (sandboxArgs, programEnvironment, sandboxHidden) are pure; probing
 * whether bwrap works here is the only I/O, once per process.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** Set to 1 to run programs without the sandbox, with the user's own rights (trusted local use only). */
export const UNSANDBOXED_ENV = 'ROCELAB_PROGRAMS_UNSANDBOXED';
/** The bwrap to use (default: bwrap on PATH, else /usr/bin/bwrap). */
export const BWRAP_ENV = 'ROCELAB_BWRAP';
/** The device's own variables (identity.c) the host sets: the only ROCELAB_* a program sees besides the channel's. */
export const DEVICE_ENV_KEYS: readonly string[] = ['ROCELAB_PID', 'ROCELAB_RANDOM_SEED'];
/** Environment names a topology may not set: they would undo the device (the preload, the libraries) or reach rocelab's own settings. */
export function reservedEnvName(name: string): boolean {
  return name === 'LD_PRELOAD' || name === 'LD_LIBRARY_PATH' || name === 'LD_AUDIT' || name.startsWith('ROCELAB_');
}

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export type Sandbox = { kind: 'bwrap'; bwrap: string } | { kind: 'none' } | { kind: 'unavailable'; why: string };

/** The whole refusal: what is missing, how to install it, and the opt-out. */
export function sandboxRefusal(why: string): string {
  return `native programs run inside a bubblewrap sandbox, but ${why}: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on a kernel that allows unprivileged user namespaces, or, for programs you trust, set ${UNSANDBOXED_ENV}=1 to run them with your own rights (docs/native-programs.md, "What a program can reach")`;
}

/** The warning `rocelab run` prints once when programs run without the sandbox. */
export const UNSANDBOXED_WARNING = `${UNSANDBOXED_ENV}=1: native programs run without the sandbox, with your rights (your files, your network, your processes): only for programs you trust`;

let probed: { key: string; sandbox: Sandbox } | null = null;

/** How this process runs programs: in bwrap, unsandboxed (the user opted out), or not at all. Probes bwrap once (a sandbox that runs `true`). */
export function programSandbox(env: NodeJS.ProcessEnv = process.env): Sandbox {
  if (env[UNSANDBOXED_ENV] === '1') return { kind: 'none' };
  const bwrap = findBwrap(env);
  const key = bwrap ?? '';
  if (probed?.key === key) return probed.sandbox;
  const sandbox = bwrap === null ? { kind: 'unavailable' as const, why: `bwrap is not installed (not on PATH, nor at /usr/bin/bwrap${env[BWRAP_ENV] ? `, nor ${BWRAP_ENV}=${env[BWRAP_ENV]}` : ''})` } : probe(bwrap);
  probed = { key, sandbox };
  return sandbox;
}

function findBwrap(env: NodeJS.ProcessEnv): string | null {
  const given = env[BWRAP_ENV];
  const candidates = given !== undefined && given !== '' ? [given] : [...(env['PATH'] ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'bwrap')), '/usr/bin/bwrap'];
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // Not this one.
    }
  }
  return null;
}

function probe(bwrap: string): Sandbox {
  const args = [...sandboxArgs({ argv: ['true'], cwd: '/', cover: [], home: null, hide: [], reveal: [], env: { PATH: DEFAULT_PATH } })];
  const r = spawnSync(bwrap, args, { encoding: 'utf8', timeout: 10_000, env: { PATH: DEFAULT_PATH }, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status === 0) return { kind: 'bwrap', bwrap };
  const said = (r.stderr ?? '').trim().split('\n').pop() ?? '';
  const how = r.error !== undefined ? r.error.message : r.signal !== null ? `was killed by ${r.signal}` : `exited ${r.status}`;
  return { kind: 'unavailable', why: `${bwrap} cannot make a sandbox here (${how}${said === '' ? '' : `: ${said}`}; are user namespaces disabled, as in a container or with kernel.unprivileged_userns_clone=0?)` };
}

export interface SandboxPlan {
  /** What runs inside: the inner launcher and the program's argv after it. */
  argv: readonly string[];
  /** The program's working directory (seen read-only). */
  cwd: string;
  /** Directories covered by empty, writable ones (COVERED, those that exist here). */
  cover: readonly string[];
  /** A path to cover with an empty, writable home (the user's home: what lies there stays out of reach); null: none. */
  home: string | null;
  /** Directories covered by empty ones after everything else, so that no reveal uncovers them (the pod's secrets). */
  hide: readonly string[];
  /** Directories the program needs that a cover may hide (the device, its cwd, its own directory), seen read-only. */
  reveal: readonly string[];
  /** The whole environment inside (bwrap starts from none). */
  env: Readonly<Record<string, string>>;
}

/** The machine's scratch space and its sockets' places (a Docker socket, D-Bus, X11's): covered by empty directories. /dev is bwrap's own. */
export const COVERED: readonly string[] = ['/tmp', '/var/tmp', '/run', '/var/run'];

/**
 * bwrap's arguments for `plan`. Order matters: later mounts lie over earlier ones. A cover that
 * holds something to reveal (/tmp holding the cwd) comes before the reveals, any other after them
 * (a cwd holding the temporary directory does not uncover it), and the pod's secrets last of all.
 */
export function sandboxArgs(plan: SandboxPlan): string[] {
  const covers = [...plan.cover, ...(plan.home !== null && plan.home !== '/' ? [plan.home] : [])].sort((a, b) => a.length - b.length);
  const early = covers.filter((c) => plan.reveal.some((r) => within(r, c)));
  const late = covers.filter((c) => !early.includes(c));
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const dir of early) args.push('--tmpfs', dir);
  for (const dir of plan.reveal) args.push('--ro-bind', dir, dir);
  for (const dir of late) args.push('--tmpfs', dir);
  // A secret already under a cover that nothing uncovers needs none of its own (which would make its name appear there as a mount point).
  const hide = plan.hide.filter((h) => !late.some((c) => within(h, c)) && (plan.reveal.some((r) => within(h, r)) || !early.some((c) => within(h, c))));
  for (const dir of hide) args.push('--tmpfs', dir);
  args.push(
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    // No user namespace of its own inside (bwrap's own --disable-userns) and no capability in this one.
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'rocelab',
    '--chdir',
    plan.cwd,
    '--clearenv',
  );
  for (const [k, v] of Object.entries(plan.env)) args.push('--setenv', k, v);
  args.push('--', ...plan.argv);
  return args;
}

/** `path` is `dir` or lies inside it. */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * The directories of a member's environment that hold the pod's secrets and private files: the
 * token file's (`rocelab run`/`up`: also the link sockets and pod.json), the link sockets' and the
 * pod.json's. Covered after every reveal: a program whose cwd holds them still cannot see them.
 */
export function sandboxHidden(memberEnv: NodeJS.ProcessEnv): string[] {
  const dirs = new Set<string>();
  const add = (dir: string | undefined): void => {
    if (dir !== undefined && dir !== '' && dir !== '/') dirs.add(dir);
  };
  const file = (name: string): string | undefined => {
    const v = memberEnv[name];
    return v === undefined || v === '' ? undefined : dirname(v);
  };
  add(file('ROCELAB_POD_TOKEN_FILE'));
  add(memberEnv['ROCELAB_LINK_SOCKET_DIR']);
  add(file('ROCELAB_POD_JSON'));
  return [...dirs].sort();
}

export interface ProgramEnvironmentInput {
  /** The member's own environment: only PATH is taken from it. */
  memberEnv: NodeJS.ProcessEnv;
  /** The program's HOME. */
  home: string;
  /** The topology's env (the loader refused reserved names) and the device's identity (DEVICE_ENV_KEYS). */
  env: Readonly<Record<string, string>>;
  /** The channel's and the launcher's variables (ROCELAB_CHANNEL_FD, ROCELAB_CHILD_*), set last. */
  channel: Readonly<Record<string, string>>;
}

/**
 * A program's whole environment. Fixed where a machine's own would change what a program prints
 * (locale, time zone, terminal), so that its output is the same on every machine; then the
 * topology's; then the channel's, which nothing overrides.
 */
export function programEnvironment(input: ProgramEnvironmentInput): Record<string, string> {
  for (const k of Object.keys(input.env)) {
    if (reservedEnvName(k) && !DEVICE_ENV_KEYS.includes(k)) throw new Error(`program environment: ${k} is reserved (the topology loader refuses it; a bug if it got here)`);
  }
  const path = input.memberEnv['PATH'];
  return {
    PATH: path !== undefined && path !== '' ? path : DEFAULT_PATH,
    HOME: input.home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    TZ: 'UTC',
    ...input.env,
    ...input.channel,
  };
}
