/**
 * The rocelab0 device's files (issue 25): where `npm run build` put the libraries a native program
 * loads and the Node binding its host uses.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** packages/native/dist: `lib/` holds libibverbs.so.1, librdmacm.so.1, libmlx5.so.1 and librocelab.so. */
export const NATIVE_DIST = dirname(fileURLToPath(import.meta.url));
export const NATIVE_LIB_DIR = join(NATIVE_DIST, 'lib');

/** Whether the device was built (gcc and the headers were there when `npm run build` ran). */
export function nativeBuilt(): boolean {
  return existsSync(join(NATIVE_LIB_DIR, 'libibverbs.so.1')) && existsSync(join(NATIVE_LIB_DIR, 'librocelab.so'));
}

export * from './binding.js';
export * from './channel.js';
export * as proto from './proto.js';
