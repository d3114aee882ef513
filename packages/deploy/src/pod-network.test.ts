import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { test } from 'node:test';
import { podNetworkAddress } from './pod-network.js';

const v4 = (address: string, internal = false): NetworkInterfaceInfo => ({ address, netmask: '255.255.0.0', family: 'IPv4', mac: '02:42:ac:11:00:02', internal, cidr: `${address}/16` });
const v6 = (address: string): NetworkInterfaceInfo => ({ address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:42:ac:11:00:02', internal: false, cidr: `${address}/64`, scopeid: 0 });

test("a container's one address besides loopback is where it listens", () => {
  assert.deepEqual(podNetworkAddress({ lo: [v4('127.0.0.1', true)], eth0: [v4('172.18.0.5'), v6('fe80::42:acff:fe12:5')] }), { address: '172.18.0.5' });
});

test('none, or several (host networking, two networks): refused, naming what there is', () => {
  assert.deepEqual(podNetworkAddress({ lo: [v4('127.0.0.1', true)] }), { problem: 'no IPv4 address besides loopback' });
  assert.deepEqual(podNetworkAddress({ eth0: [v4('172.18.0.5')], eth1: [v4('10.1.0.7')] }), { problem: '2 IPv4 addresses: 172.18.0.5 (eth0), 10.1.0.7 (eth1)' });
});

test('a Swarm task, on its overlay and on docker_gwbridge: the pod subnet picks the overlay address; a bad subnet is named', () => {
  const task = { lo: [v4('127.0.0.1', true)], eth0: [v4('10.213.0.9')], eth1: [v4('172.19.0.4')] };
  assert.deepEqual(podNetworkAddress(task, '10.213.0.0/16'), { address: '10.213.0.9' });
  assert.deepEqual(podNetworkAddress(task, '10.99.0.0/16'), { problem: 'no IPv4 address in the pod subnet 10.99.0.0/16' });
  assert.deepEqual(podNetworkAddress(task, '10.213.0.0/40'), { problem: 'a pod subnet "10.213.0.0/40" that is not an IPv4 CIDR like 10.213.0.0/16' });
});
