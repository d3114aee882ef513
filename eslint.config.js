// Lint enforces the purity rule of STYLE §14: the model packages are deterministic state
// machines, so wall clocks, timers, randomness, sockets, files, metrics and logging stay out.
import tseslint from 'typescript-eslint';

const PURE = ['wire', 'sim', 'sync', 'switch', 'rnic', 'host', 'workload', 'results'].map((p) => `packages/${p}/src/**/*.ts`);

const why = 'model code is driven by virtual time and seeded streams (STYLE §14)';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/wire/src/gen/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: PURE,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'Date', 'performance', 'process', 'fetch', 'WebSocket'].map(
          (name) => ({ name, message: `${name} is not allowed in pure packages: ${why}` }),
        ),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: `use a seeded stream from @rocelab/sim: ${why}` },
        { object: 'Date', property: 'now', message: why },
        { object: 'process', property: 'hrtime', message: why },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: ['ws', 'prom-client', 'pino', 'dockerode', 'testcontainers', 'node:fs', 'fs', 'node:fs/promises', 'node:net', 'net', 'node:http', 'http', 'node:timers', 'timers', 'node:timers/promises', 'node:dgram', 'node:child_process', 'node:worker_threads', 'node:perf_hooks'].map(
            (name) => ({ name, message: `${name} is not allowed in pure packages: ${why}` }),
          ),
          patterns: [{ group: ['@rocelab/runtime', '@rocelab/telemetry', '@rocelab/*-service', '@rocelab/controller', '@rocelab/cli'], message: 'pure packages must not depend on I/O packages or services' }],
        },
      ],
    },
  },
);
