/**
 * What is left of a local pod when `rocelab run`/`up` dies without cleaning up (SIGKILL, a crash
 * that skips its exit hooks, the OOM killer): a small shell process of its own session, started
 * with the pod, reads a pipe from rocelab. rocelab writes `+PID` for every member it starts and
 * `done` once it removed the pod's private directory itself. At end of file without `done` —
 * rocelab is gone, however it went — the members still running get 5 s to notice their lost
 * controller and exit on their own (each says so in one line), then SIGKILL (a stopped one
 * cannot notice, and SIGKILL reaches it anyway), and the private directory (pod token,
 * pod.json, link sockets) is removed. A PID is killed only while its environment still names
 * this pod's directory, so a PID used again by another process is never touched.
 *
 * Its own session (`detached`): a Ctrl-C in the terminal, which reaches rocelab's whole
 * process group, does not reach it.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

const SCRIPT = `
dir=$1
pids=
while IFS= read -r line; do
  case $line in
    done) exit 0 ;;
    +*) pids="$pids \${line#+}" ;;
  esac
done
[ -d "$dir" ] || exit 0
ours() { tr '\\0' '\\n' < "/proc/$1/environ" 2>/dev/null | grep -qxF "ROCELAB_LINK_SOCKET_DIR=$dir"; }
left=
for p in $pids; do ours "$p" && left="$left $p"; done
i=0
while [ -n "$left" ] && [ $i -lt 50 ]; do
  sleep 0.1
  still=
  for p in $left; do kill -0 "$p" 2>/dev/null && still="$still $p"; done
  left=$still
  i=$((i + 1))
done
for p in $left; do ours "$p" && kill -KILL "$p" 2>/dev/null; done
rm -rf -- "$dir"
`;

export interface Janitor {
  /** A member process was started (its environment names the pod's directory). */
  watch(pid: number): void;
  /** rocelab removed the directory itself: the janitor ends without doing anything. */
  done(): void;
}

/** Starts the janitor of `dir` (the pod's private directory); null where no POSIX shell runs it. */
export function startJanitor(dir: string): Janitor | null {
  if (process.platform === 'win32') return null;
  // A child of rocelab for as long as rocelab lives (Node closes a child's pipe when that child
  // exits, so a shell that forked the janitor off and exited would leave it an EOF at once). Its
  // environment is PATH alone: never the user's ROCELAB_POD_TOKEN.
  const child = spawn('/bin/sh', ['-c', SCRIPT, 'rocelab-janitor', dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined); // it is gone already: nothing left for it to do
  child.unref();
  (child.stdin as Socket).unref(); // the pipe must not keep rocelab running
  let open = true;
  const write = (line: string) => {
    if (open) child.stdin.write(`${line}\n`);
  };
  return {
    watch: (pid) => write(`+${pid}`),
    done: () => {
      write('done');
      open = false;
      child.stdin.end();
    },
  };
}
