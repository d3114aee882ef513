import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_WIRE_MODEL, Engine } from '@rocelab/sim';
import { dataFrame, ScriptedNode, testNodes } from '@rocelab/sim/testing';
import { Switch, type SwitchConfig } from './switch.js';
import { testSwitchConfig } from './testing.js';

// h1 —40G— sw —10G— h2: sw queues what h1 sends and pauses h1 (priority 3 is lossless).
const IP = { h1: 0x0a_00_01_0b, h2: 0x0a_00_01_0c };
const MAC = { h1: 0x02_00_00_00_00_11, h2: 0x02_00_00_00_00_12, sw: 0x02_00_00_00_ff_01 };
const H1 = 0;
const H2 = 1;
const SW = 2;
const KILL_PS = 25_000_000;
const RESTART_PS = 40_000_000;

function pod() {
  const nodes = testNodes([
    { a: 'h1', b: 'sw' },
    { a: 'h2', b: 'sw', rateBps: 10e9 },
  ]);
  const engine = new Engine({ seed: 1, nodes, hosted: [H1, H2, SW], wire: DEFAULT_WIRE_MODEL });
  const config: SwitchConfig = testSwitchConfig(engine.context(SW), {
    mac: MAC.sw,
    peerMacs: [MAC.h1, MAC.h2],
    attachedHosts: [
      { ip: IP.h1, mac: MAC.h1, port: 0 },
      { ip: IP.h2, mac: MAC.h2, port: 1 },
    ],
    drill: true,
    settings: { bufferBytes: 200_000, watchdog: { ...testSwitchConfig(engine.context(SW), { drill: true }).settings.watchdog, enabled: true } },
  });
  const sw = new Switch(engine.context(SW), config);
  const h1 = new ScriptedNode(engine.context(H1));
  const h2 = new ScriptedNode(engine.context(H2));
  engine.attach(H1, h1);
  engine.attach(H2, h2);
  engine.attach(SW, sw);
  engine.onRestart((i) => new Switch(engine.context(i), config));
  let seq = 0;
  for (const [atPs, up] of [[KILL_PS, false], [RESTART_PS, true]] as const) {
    for (const port of nodes[SW]!.ports) {
      engine.scheduleLinkState(atPs, 100 + seq++, SW, port.index, up);
      engine.scheduleLinkState(atPs, 100 + seq++, port.peerNode, port.peerPort, up);
    }
  }
  engine.scheduleKill(KILL_PS, 0, SW, 0, 'kill sw');
  engine.scheduleRestart(RESTART_PS, 1, SW, 0, 'kill sw ends');
  const frame = (psn: number) => dataFrame({ srcIp: IP.h1, dstIp: IP.h2, srcMac: MAC.h1, dstMac: MAC.sw, ttl: 64, psn });
  for (let k = 0; k < 200; k++) h1.send(0, frame(k));
  h1.at(45_000_000, () => {
    for (let k = 1000; k < 1100; k++) h1.send(0, frame(k));
  });
  const audit = () => {
    let sent = 0;
    let rest = 0;
    for (const i of [H1, H2, SW]) {
      const s = engine.context(i).stats;
      sent += s.sent;
      rest += s.delivered + s.droppedTotal() + engine.heldFrames(i);
    }
    return { sent, rest };
  };
  return { engine, sw, h1, h2, audit };
}

test('a killed switch loses what it queued (node_lost); it comes back empty, its tables as at pod start, PFC and watchdog fresh', () => {
  const { engine, sw, h2, audit } = pod();
  engine.runUntil(KILL_PS);
  const held = sw.heldFrames();
  assert.ok(held > 10, `sw queues on its 10G port (${held})`);
  assert.ok(sw.pfc.pausing(0, 3), 'and pauses h1');
  assert.ok(engine.context(H1).transmitters[0]!.pausedMask(KILL_PS) !== 0);
  engine.runUntil(KILL_PS + 1);
  const lost = engine.context(SW).stats.droppedByReason().node_lost;
  assert.equal(lost, held);
  assert.equal(engine.context(SW).stats.ports[1]!.dropped.reduce((a, b) => a + b, 0), held, 'counted on the egress port they waited for');
  assert.equal(engine.context(H1).transmitters[0]!.pausedMask(KILL_PS + 1), 0, 'h1 no longer paused by the dead switch');
  const { sent, rest } = audit();
  assert.equal(sent, rest);

  engine.runUntil(RESTART_PS + 1);
  const fresh = engine.model(SW) as Switch;
  assert.notEqual(fresh, sw);
  assert.equal(fresh.heldFrames(), 0);
  assert.equal(fresh.mmu.heldBytes(), 0);
  assert.equal(fresh.pfc.pausing(0, 3), false);
  assert.equal(fresh.watchdog(1, 3)!.detections, 0);
  // It polled at its boot; the next poll is one drill poll period (1 ms) later.
  assert.equal(engine.context(SW).timerDeadlinePs(0), RESTART_PS + 1_000_000_000, 'the fresh watchdog polls from its boot');

  // h1 still holds part of its first batch (the down link drops at line rate), then sends 100 more.
  engine.runUntil(1_000_000_000);
  const second = h2.received.filter((r) => r.frame.psn >= 1000);
  assert.equal(second.length, 100, 'every frame sent after the restart reaches h2');
  assert.equal(engine.context(H1).stats.droppedByReason().link_down + engine.context(H2).stats.droppedByReason().link_down + engine.context(SW).stats.droppedByReason().node_lost + h2.received.filter((r) => r.frame.psn < 1000).length, 200, 'the first batch: delivered, lost with the switch, or dropped on its down links');
  assert.equal(fresh.floodCopies.reduce((a, b) => a + b, 0), 0, 'unicast: the fresh tables know h2 (as after the first ARP exchange)');
  assert.ok(fresh.pfc.pausingPs(0, 3, 1_000_000_000) > 0, 'the fresh switch pauses h1 again');
  const end = audit();
  assert.equal(end.sent, end.rest);
  // Frames already on the wire toward sw when it died were lost to it too.
  assert.ok(engine.context(SW).stats.droppedByReason().node_lost >= lost);
});
