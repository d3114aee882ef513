/**
 * Authentication of every connection (links and control) with a key derived from the pod
 * token: a challenge–response over fresh nonces, so a recorded Hello cannot be replayed and
 * both ends prove they hold the token. The server speaks first with its nonce; the client
 * answers with its nonce and a proof over both; the server answers with its own proof.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PROTOCOL_VERSION } from '@rocelab/wire';

/** The development token: every node warns when it is used (see docs/errors.md). */
export const DEV_POD_TOKEN = 'rocelab-dev-token';

export function podKey(token: string): Buffer {
  return createHash('sha256').update(`rocelab-pod-key\0${token}`).digest();
}

export function newNonce(): Uint8Array {
  return new Uint8Array(randomBytes(16));
}

/** Who proves what: the client over (server nonce, client nonce), the server over (client nonce, server nonce). */
export type ProofRole = 'client' | 'server';

export function makeProof(key: Buffer, role: ProofRole, identity: string, first: Uint8Array, second: Uint8Array): Uint8Array {
  const mac = createHmac('sha256', key);
  mac.update(`rocelab/${PROTOCOL_VERSION}/${role}\0${identity}\0`);
  mac.update(first);
  mac.update(second);
  return new Uint8Array(mac.digest());
}

export function checkProof(expected: Uint8Array, actual: Uint8Array): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
