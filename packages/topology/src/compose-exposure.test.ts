/**
 * What a composed pod exposes: published ports on the host's loopback only, and the pod token
 * as a Compose secret (a file at /run/secrets/rocelab_pod_token), never in an environment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { generateClos } from './clos.js';
import { composeFile, DEV_TOKEN_FILE } from './compose.js';
import { parseTopology } from './load.js';

const POD = parseTopology(generateClos({ spines: 1, leavesPerPod: 1, torsPerPod: 1, pods: 1, hostsPerTor: 2, rate: '40G', latency: '1us', name: 'tiny' }), 'tiny.yaml');

interface Compose {
  services: Record<string, { ports?: string[]; environment?: Record<string, string>; secrets?: string[] }>;
  secrets?: Record<string, { file?: string }>;
}

const compose = (): Compose => parse(composeFile(POD, { topologyFile: 'pods/tiny.yaml' }), { merge: true }) as Compose;

test('every published port binds to 127.0.0.1 on the host: controller, Prometheus, Grafana, and nothing else is published', () => {
  const published = Object.entries(compose().services).flatMap(([name, svc]) => (svc.ports ?? []).map((p) => [name, p] as const));
  assert.deepEqual(published, [
    ['controller', '127.0.0.1:${CONTROLLER_PORT:-7000}:7000'],
    ['prometheus', '127.0.0.1:${PROMETHEUS_PORT:-9090}:9090'],
    ['grafana', '127.0.0.1:${GRAFANA_PORT:-3000}:3000'],
  ]);
  for (const [name, port] of published) assert.match(port, /^127\.0\.0\.1:\$\{[A-Z_]+:-\d+\}:\d+$/, `${name}: host address, then host port, then container port`);
});

test('the pod token is a file secret for the controller and every node, from ROCELAB_POD_TOKEN_FILE or the development file', () => {
  const c = compose();
  assert.deepEqual(c.secrets, { rocelab_pod_token: { file: `\${ROCELAB_POD_TOKEN_FILE:-${DEV_TOKEN_FILE}}` } });
  for (const [name, svc] of Object.entries(c.services)) {
    const env = svc.environment ?? {};
    assert.equal(env.ROCELAB_POD_TOKEN, undefined, `${name}: no token in the environment`);
    if (name === 'prometheus' || name === 'grafana') {
      assert.equal(svc.secrets, undefined, `${name} does not get the token`);
      continue;
    }
    assert.deepEqual(svc.secrets, ['rocelab_pod_token'], name);
    assert.equal(env.ROCELAB_POD_TOKEN_FILE, '/run/secrets/rocelab_pod_token', name);
  }
});
