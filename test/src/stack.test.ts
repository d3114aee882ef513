/**
 * `rocelab stack`: a Swarm stack file every node of which resolves by name on one overlay, the
 * token a secret, the topology a config, and a worker's nodes in one service. The Docker tier
 * (docker.test.ts) deploys one on a one-node swarm.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { join } from 'node:path';
import { cli, ROOT } from './harness.js';

const DEV_TOKEN = readFileSync(join(ROOT, 'deploy/dev-pod-token'), 'utf8').trim();

type Service = { environment: Record<string, string>; deploy: { endpoint_mode: string; replicas?: string }; networks: string[]; secrets?: string[]; configs?: Array<{ source: string; target: string }>; ports?: Array<{ mode: string }> };
type Stack = { services: Record<string, Service>; networks: Record<string, { driver: string }>; secrets: Record<string, { file: string }>; configs: Record<string, { file: string }> };

test('rocelab stack: one service per node on an overlay, each by DNS round robin; the token a secret and in no environment; the topology a config', () => {
  const r = cli(['stack', 'test/fixtures/tree.yaml']);
  assert.equal(r.status, 0, r.stderr);
  const stack = parse(r.stdout) as Stack;
  assert.deepEqual(Object.keys(stack.services), ['controller', 'h1', 'h2', 'h3', 'h4', 'sw1', 'sw2', 'prometheus', 'grafana']);
  assert.deepEqual(stack.networks, { rocelab: { driver: 'overlay', attachable: true, ipam: { config: [{ subnet: '${ROCELAB_SUBNET:-10.213.0.0/16}' }] } } });
  for (const [name, s] of Object.entries(stack.services)) {
    assert.equal(s.deploy.endpoint_mode, 'dnsrr', `${name}: no virtual IP (the IPVS mesh does not route here)`);
    assert.deepEqual(s.networks, ['rocelab']);
    for (const p of s.ports ?? []) assert.equal(p.mode, 'host', `${name}: a published port needs host mode without a virtual IP`);
    assert.ok(!('ROCELAB_POD_TOKEN' in (s.environment ?? {})), `${name}: the token is a secret, never a variable`);
    assert.ok(!Object.values(s.environment ?? {}).includes(DEV_TOKEN), `${name}: no variable carries the token`);
  }
  for (const name of ['controller', 'h1', 'sw2']) {
    const s = stack.services[name]!;
    assert.deepEqual(s.secrets, ['rocelab_pod_token']);
    assert.equal(s.environment.ROCELAB_POD_TOKEN_FILE, '/run/secrets/rocelab_pod_token');
    assert.deepEqual(s.configs, [{ source: 'rocelab_topology', target: '/pod/tree.yaml' }]);
  }
  assert.equal(stack.services.h1!.environment.ROCELAB_NODE, 'h1');
  assert.equal(stack.services.grafana!.deploy.replicas, '${GRAFANA_REPLICAS:-0}', 'Grafana only when asked for: offline it has no image');
  assert.match(stack.configs.rocelab_topology!.file, /test\/fixtures\/tree\.yaml$/);
});

test('rocelab stack --workers 2: a worker per service, its nodes together; a topology naming other files is refused', () => {
  const r = cli(['stack', 'test/fixtures/tree.yaml', '--workers', '2']);
  assert.equal(r.status, 0, r.stderr);
  const stack = parse(r.stdout) as Stack;
  const workers = Object.entries(stack.services).filter(([, s]) => s.environment?.ROCELAB_ROLE === 'member');
  assert.deepEqual(workers.map(([name, s]) => [name, s.environment.ROCELAB_NODES, s.environment.ROCELAB_ADVERTISE_HOST]), [['w1', 'h1,h2,sw1', 'w1'], ['w2', 'h3,h4,sw2', 'w2']]);
  const apps = cli(['stack', 'examples/rdma-hello/pod.yaml']);
  assert.equal(apps.status, 2);
  assert.match(apps.stderr, /examples\/rdma-hello\/pod\.yaml: expected a topology that refers to no other file \(a Docker config holds it alone\), got app hello\.mjs/);
});
