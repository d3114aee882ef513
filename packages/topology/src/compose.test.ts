import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { generateClos } from './clos.js';
import { ComposeError, composeFile } from './compose.js';
import { parseTopology } from './load.js';

const POD = parseTopology(generateClos({ spines: 1, leavesPerPod: 2, torsPerPod: 2, pods: 1, hostsPerTor: 2, rate: '40G', latency: '1us', name: 'small' }), 'small.yaml');

interface Service {
  image: string;
  environment?: Record<string, string>;
  volumes?: string[];
  labels?: Record<string, string>;
  build?: unknown;
  container_name?: string;
  depends_on?: string[];
}

/** The compose file as Compose reads it: YAML 1.1 merge keys resolved. */
function services(text: string): Record<string, Service> {
  return (parse(text, { merge: true }) as { services: Record<string, Service> }).services;
}

test('one service per node plus controller, Prometheus and Grafana; the same input gives the same bytes', () => {
  const text = composeFile(POD, { topologyFile: 'pods/small.yaml' });
  assert.equal(composeFile(POD, { topologyFile: 'pods/small.yaml' }), text);
  const s = services(text);
  assert.deepEqual(Object.keys(s).sort(), ['controller', 'grafana', 'h1', 'h2', 'h3', 'h4', 'leaf1', 'leaf2', 'prometheus', 'spine1', 'tor1', 'tor2'].sort());
  for (const [name, svc] of Object.entries(s)) assert.equal(svc.container_name, undefined, `${name}: no fixed container name`);
});

test('every rocelab service runs the one image, built once, and learns its part from the environment', () => {
  const s = services(composeFile(POD, { topologyFile: 'pods/small.yaml' }));
  const rocelab = Object.entries(s).filter(([name]) => name !== 'prometheus' && name !== 'grafana');
  assert.deepEqual([...new Set(rocelab.map(([, svc]) => svc.image))], ['${ROCELAB_IMAGE:-rocelab:local}']);
  assert.deepEqual(rocelab.filter(([, svc]) => svc.build !== undefined).map(([n]) => n), ['controller']);
  assert.deepEqual(s.h3!.environment, {
    ROCELAB_TOPOLOGY: '/pod/small.yaml',
    ROCELAB_CONTROLLER: 'ws://controller:7000/control',
    ROCELAB_POD_TOKEN_FILE: '/run/secrets/rocelab_pod_token',
    ROCELAB_LOG_LEVEL: '${ROCELAB_LOG_LEVEL:-info}',
    ROCELAB_ROLE: 'host',
    ROCELAB_NODE: 'h3',
  });
  assert.equal(s.leaf2!.environment!.ROCELAB_ROLE, 'switch');
  assert.deepEqual(s.leaf2!.labels, { 'io.rocelab.pod': 'small', 'io.rocelab.role': 'leaf', 'io.rocelab.node': 'leaf2' });
  assert.deepEqual(s.tor1!.volumes, ['./pods:/pod:ro']);
  assert.deepEqual(s.tor1!.depends_on, ['controller']);
  assert.equal(s.controller!.environment!.ROCELAB_ROLE, 'controller');
});

test("the topology's directory is mounted as written: relative with ./, absolute as is", () => {
  const mount = (file: string): string => services(composeFile(POD, { topologyFile: file })).h1!.volumes![0]!;
  assert.equal(mount('small.yaml'), '.:/pod:ro');
  assert.equal(mount('./deploy/pods/small.yaml'), './deploy/pods:/pod:ro');
  assert.equal(mount('/tmp/x/small.yaml'), '/tmp/x:/pod:ro');
});

test('a node named like one of the compose services is refused with the names that clash', () => {
  const clash = parseTopology(
    'name: c\nnodes:\n  - {name: controller, role: tor}\n  - {name: grafana, role: host, ip: 10.0.0.1}\nlinks:\n  - {a: grafana:p0, b: controller:p1}\n',
    'c.yaml',
  );
  assert.throws(() => composeFile(clash, { topologyFile: 'c.yaml' }), (err: unknown) => {
    assert.ok(err instanceof ComposeError);
    assert.equal(err.message, "c.yaml: node names controller, grafana: expected names other than controller, prometheus, grafana (the compose file's own services)");
    return true;
  });
});
