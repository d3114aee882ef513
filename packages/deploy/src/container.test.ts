import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { test } from 'node:test';
import { containerSetup } from './container.js';

const eth0 = (address: string): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
  lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
  eth0: [{ address, netmask: '255.255.0.0', family: 'IPv4', mac: '02:42:ac:11:00:02', internal: false, cidr: `${address}/16` }],
});
const never = (): never => assert.fail('the interfaces are read only when an address is missing');

test('a role outside controller, switch, host and member is refused, naming what was set', () => {
  assert.deepEqual(containerSetup({}, never), { problem: 'ROCELAB_ROLE="": expected one of controller, switch, host, member' });
  assert.deepEqual(containerSetup({ ROCELAB_ROLE: 'worker' }, never), { problem: 'ROCELAB_ROLE="worker": expected one of controller, switch, host, member' });
});

test('the controller listens on the pod network address and gets no member defaults', () => {
  const env: NodeJS.ProcessEnv = { ROCELAB_ROLE: 'controller' };
  assert.deepEqual(containerSetup(env, () => eth0('172.18.0.5')), { role: 'controller' });
  assert.deepEqual(env, { ROCELAB_ROLE: 'controller', ROCELAB_CONTROLLER_HOST: '172.18.0.5' });
});

test('a one-node member: the pod address, /metrics on 9100, the controller at controller:7000, reached by its node name; what is set wins', () => {
  const env: NodeJS.ProcessEnv = { ROCELAB_ROLE: 'host', ROCELAB_NODE: 'h1', ROCELAB_METRICS_HOST: '0.0.0.0' };
  assert.deepEqual(containerSetup(env, () => eth0('172.18.0.6')), { role: 'host' });
  assert.deepEqual(env, {
    ROCELAB_ROLE: 'host',
    ROCELAB_NODE: 'h1',
    ROCELAB_LISTEN_HOST: '172.18.0.6',
    ROCELAB_METRICS_HOST: '0.0.0.0',
    ROCELAB_METRICS_PORT: '9100',
    ROCELAB_CONTROLLER: 'ws://controller:7000/control',
    ROCELAB_ADVERTISE_HOST: 'h1',
  });
  const set: NodeJS.ProcessEnv = { ROCELAB_ROLE: 'switch', ROCELAB_NODE: 'sw1', ROCELAB_LISTEN_HOST: '10.0.0.1', ROCELAB_METRICS_HOST: '10.0.0.1', ROCELAB_ADVERTISE_HOST: 'sw1.rocelab-nodes' };
  assert.deepEqual(containerSetup(set, never), { role: 'switch' });
  assert.equal(set.ROCELAB_ADVERTISE_HOST, 'sw1.rocelab-nodes');
});

test('a worker of several nodes needs its advertised name; a container with no single pod address is refused', () => {
  const worker = { ROCELAB_ROLE: 'member', ROCELAB_NODES: 'h1,h2', ROCELAB_LISTEN_HOST: '10.0.0.1', ROCELAB_METRICS_HOST: '10.0.0.1' };
  assert.deepEqual(containerSetup({ ...worker }, never), { problem: 'ROCELAB_ADVERTISE_HOST is not set: expected the name other containers reach this one by (default: the one node it hosts)' });
  assert.deepEqual(containerSetup({ ...worker, ROCELAB_ADVERTISE_HOST: 'w1' }, never), { role: 'member' });
  assert.deepEqual(containerSetup({ ROCELAB_ROLE: 'controller' }, () => ({})), {
    problem: 'ROCELAB_CONTROLLER_HOST is not set and this container has no IPv4 address besides loopback: expected one address on the pod network (ROCELAB_POD_SUBNET names it when the container has several networks), or the address to listen on in ROCELAB_CONTROLLER_HOST',
  });
});
