#!/usr/bin/env node
// The `rocelab` command (npx rocelab). Committed rather than pointing at dist/, so `npm ci`
// links the bin on a fresh clone, before anything is built.
try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('/cli/dist/main.js')) {
    process.stderr.write('rocelab: not built yet: run `npm run build` first (npm start and npm test build too)\n');
    process.exit(2);
  }
  throw err;
}
