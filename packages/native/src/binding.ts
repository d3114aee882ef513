/**
 * The Node binding (c/addon/addon.c, built to dist/rocelab_native.node): the system calls the host's
 * end of a program's channel needs and Node does not offer (SOCK_SEQPACKET, SCM_RIGHTS, a blocking
 * receive, a MAP_SHARED mapping). Errors carry `code`: the errno's name, or 'ETIMEDOUT'.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nativeDist } from './index.js';

export interface Received {
  /** Bytes of the packet now at the start of the buffer; 0: the peer closed its end (EOF). */
  bytes: number;
  /** A descriptor that came with the packet (SCM_RIGHTS, close-on-exec, now the caller's), or -1. */
  fd: number;
}

export interface NativeBinding {
  /** An AF_UNIX SOCK_SEQPACKET pair: the host's end close-on-exec, the child's end inheritable. */
  socketpair(): [hostFd: number, childFd: number];
  /** Blocks until a packet arrives, at most `timeoutMs` (< 0: no limit; then throws code 'ETIMEDOUT'). A packet larger than `buffer` throws 'EMSGSIZE'. */
  recv(fd: number, buffer: Uint8Array, timeoutMs: number): Received;
  /** Sends `buffer` as one packet (blocking). A peer that is gone throws 'EPIPE' (never SIGPIPE). */
  send(fd: number, buffer: Uint8Array): void;
  /** Maps `length` bytes of the file at `fd` shared and read-write, and closes `fd` (even on error); unmapped when the ArrayBuffer is collected. */
  mapShared(fd: number, length: number): ArrayBuffer;
  close(fd: number): void;
}

/** Where `npm run build` puts the binding (a function: index.ts re-exports this module, so nativeDist() is not read while modules load). */
export function bindingPath(): string {
  return join(nativeDist(), 'rocelab_native.node');
}

let cached: NativeBinding | undefined;

/** The binding, loaded once; a clear error when `npm run build` could not build it. */
export function binding(): NativeBinding {
  if (cached !== undefined) return cached;
  const path = bindingPath();
  if (!existsSync(path)) {
    throw new Error(
      `rocelab's Node binding is not built (expected ${path}): install gcc, libibverbs-dev, librdmacm-dev, libcapstone-dev and Node's headers (nodejs), then run npm run build`,
    );
  }
  cached = createRequire(import.meta.url)(path) as NativeBinding;
  return cached;
}
