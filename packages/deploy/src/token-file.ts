/**
 * The pod token for the processes `rocelab run` and `up` start, and for the containers of
 * `--mode docker`, as a file rather than an environment variable (`/proc/PID/environ` is
 * readable by every process of the same user, and `docker inspect` shows a container's
 * environment): a private temporary directory (0700) holding one file, named to children by
 * ROCELAB_POD_TOKEN_FILE and removed when the pod is done or this process exits, whichever
 * comes first.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINER_UID } from '@rocelab/topology';

export interface TokenFile {
  path: string;
  /** Remove the file and its directory (idempotent). */
  remove(): void;
}

/**
 * Writes `token` to a new 0600 file in a new 0700 directory. `forContainer`: the file is
 * bind-mounted into containers that run as uid 10001; as root it is given to that user (0400),
 * otherwise it is made readable (0444) — only inside the container, as on this machine its
 * 0700 directory keeps everyone but this user out.
 */
export function writeTokenFile(token: string, options: { forContainer?: boolean } = {}): TokenFile {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-token-'));
  const path = join(dir, 'pod-token');
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', remove);
  try {
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
    if (options.forContainer === true) {
      if (process.getuid?.() === 0) {
        chownSync(path, CONTAINER_UID, CONTAINER_UID);
        chmodSync(path, 0o400);
      } else {
        chmodSync(path, 0o444);
      }
    }
  } catch (err) {
    remove();
    throw err;
  }
  return { path, remove };
}
