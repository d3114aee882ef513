/**
 * Test support (exported as `@rocelab/switch/testing`): a `SwitchConfig` for a switch built on
 * an engine context, from the profile's settings with overrides — what the runtime derives
 * from a topology file, without one.
 */
import type { NodeContext } from '@rocelab/sim';
import type { SwitchProblem } from './config.js';
import type { Route } from './forwarding.js';
import { planSwitch } from './plan.js';
import { profileSettings, type SwitchProfile, type SwitchSettings } from './profiles.js';
import type { AttachedHost, SwitchConfig } from './switch.js';

export interface TestSwitchOptions {
  mac?: number;
  peerMacs?: readonly number[];
  routes?: readonly Route[];
  attachedHosts?: readonly AttachedHost[];
  profile?: SwitchProfile;
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
