/**
 * The rocelab0 device's files (issue 25): where `npm run build` put the libraries a native program
 * loads and the Node binding its host uses.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * packages/native/dist: `lib/` holds libibverbs.so.1, librdmacm.so.1, libmlx5.so.1, libefa.so.1
 * and librocelab.so. Found through the package, not this file's place: a member runs this code
 * from a bundle elsewhere (scripts/bundle-members.mjs). ROCELAB_NATIVE_DIST overrides it.
 */
export function nativeDist(): string {
  const env = process.env['ROCELAB_NATIVE_DIST'];
  if (env !== undefined && env !== '') return env;
  return join(dirname(createRequire(import.meta.url).resolve('@rocelab/native/package.json')), 'dist');
}

export function nativeLibDir(): string {
  return join(nativeDist(), 'lib');
}

/** Whether the device was built (gcc and the headers were there when `npm run build` ran). */
export function nativeBuilt(): boolean {
  return existsSync(join(nativeLibDir(), 'libibverbs.so.1')) && existsSync(join(nativeLibDir(), 'librocelab.so'));
}

export * from './binding.js';
export * from './channel.js';
export * from './sandbox.js';
export * as proto from './proto.js';
export * as socketsProto from './sockets-proto.js';
