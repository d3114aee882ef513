/**
 * Test support (exported as `@rocelab/switch/testing`): a `SwitchConfig` for a switch built on
 * an engine context, from the profile's settings with overrides — what the runtime derives
 * from a topology file, without one.
 */
import { DEFAULT_WIRE_MODEL, Engine, type NodeContext, type Profile } from '@rocelab/sim';
import { ScriptedNode, testNodes } from '@rocelab/sim/testing';
import type { SwitchProblem } from './config.js';
import type { Route } from './forwarding.js';
import { planSwitch } from './plan.js';
import { profileSettings, type SwitchSettings } from './profiles.js';
import { Switch, type AttachedHost, type SwitchConfig } from './switch.js';

export interface TestSwitchOptions {
  mac?: number;
  peerMacs?: readonly number[];
  routes?: readonly Route[];
  attachedHosts?: readonly AttachedHost[];
  profile?: Profile;
  drill?: boolean;
  settings?: Partial<SwitchSettings>;
}

export function testSwitchConfig(ctx: NodeContext, o: TestSwitchOptions = {}): SwitchConfig {
  const rate = ctx.ports[0]?.out.rateBps ?? 40e9;
  const settings = { ...profileSettings(o.profile ?? 'vendor', o.drill ? 'drill' : 'default', rate), ...o.settings };
  const problems: SwitchProblem[] = [];
  // Tests build symmetric links: what arrives on a port is what the port sends.
  const plan = planSwitch(settings, ctx.ports.map((p) => ({ in: p.out })), problems);
  if (plan === null) throw new Error(`test switch: ${problems.map((p) => `${p.field}: expected ${p.expected}`).join('; ')}`);
  return {
    mac: o.mac ?? 0x02_00_00_00_ff_01,
    peerMacs: o.peerMacs ?? ctx.ports.map((_, i) => 0x02_00_00_00_00_10 + i),
    routes: o.routes ?? [],
    attachedHosts: o.attachedHosts ?? [],
    settings,
    plan,
    accounting: 'rocelab',
  };
}

/** h1 —— sw —— h2 with scripted hosts: sw port 0 faces h1, port 1 faces h2 (whose IP is `H2_IP`). */
export const H2_IP = 0x0a_00_00_02;

export function switchPair(o: { latencyPs?: number; settings?: Partial<SwitchSettings> } = {}) {
  const nodes = testNodes([
    { a: 'h1', b: 'sw', ...(o.latencyPs === undefined ? {} : { latencyPs: o.latencyPs }) },
    { a: 'h2', b: 'sw', ...(o.latencyPs === undefined ? {} : { latencyPs: o.latencyPs }) },
  ]); // sorted: h1 = 0, h2 = 1, sw = 2
  const engine = new Engine({ seed: 1, nodes, hosted: [0, 1, 2], wire: DEFAULT_WIRE_MODEL });
  const sw = new Switch(engine.context(2), testSwitchConfig(engine.context(2), { routes: [{ ip: H2_IP, ports: [1] }], ...(o.settings ? { settings: o.settings } : {}) }));
  const h1 = new ScriptedNode(engine.context(0));
  const h2 = new ScriptedNode(engine.context(1));
  engine.attach(0, h1);
  engine.attach(1, h2);
  engine.attach(2, sw);
  return { engine, sw, h1, h2 };
}
