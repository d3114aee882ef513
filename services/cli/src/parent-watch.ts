/**
 * `npx rocelab up` (and `npm start`, `npm exec`) runs rocelab as the child of a `sh -c` that npm
 * spawned. On SIGTERM or SIGINT npm signals only that shell, which dies, and npm exits: rocelab
 * never hears of it, and the pod it runs goes on (issue 22: 80 s and more; here, until killed by
 * hand). So a local pod started by npm (`npm_lifecycle_event` set: npm,
 * and the package managers that copy it, set it for every script and `exec`) watches its
 * parent: once the parent is gone (rocelab is re-parented), rocelab sends itself SIGTERM and
 * stops the pod the way SIGTERM does. Started any other way it does not: a pod run under
 * `nohup` or `setsid` is meant to outlive its shell.
 */

const CHECK_EVERY_MS = 500;

/**
 * Calls `onGone` (once) when this process's parent is gone, if `env` (this process's) says npm
 * started it; returns a function that stops watching.
 */
export function watchParent(onGone: () => void, env: NodeJS.ProcessEnv = process.env): () => void {
  if (env.npm_lifecycle_event === undefined) return () => undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.stderr.write(`rocelab: the process that started it (pid ${parent}, npm's shell) is gone: stopping as on SIGTERM\n`);
    onGone();
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
