/**
 * Test support for scenario tests: a pod from a fixture in one engine (the real models, the
 * real link model), stepped through virtual time so a test can watch counters change, with
 * the conservation audit of `rocelab run` at the end.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assembleResult, buildEngine, nodeFinal, podContext, scheduleFault, torsOfHosts, type PodEngine, type RunResult } from '@rocelab/runtime';
import type { NodeContext, PortStats } from '@rocelab/sim';
import type { Host } from '@rocelab/host';
import type { Nic } from '@rocelab/rnic';
import type { Switch } from '@rocelab/switch';
import { parseTopology, type PodSpec } from '@rocelab/topology';
import { connectionKey } from '@rocelab/workload';

export class Scenario {
  readonly pod: PodSpec;
  readonly engine: PodEngine;

  /** `edit` rewrites the fixture's text first (e.g. to switch the watchdog off). */
  constructor(file: string, edit: (yaml: string) => string = (y) => y) {
    const text = edit(readFileSync(file, 'utf8'));
    this.pod = parseTopology(text, file);
    const all = this.pod.nodes.map((n) => n.index);
    const pc = podContext(this.pod, this.pod.seed);
    this.engine = buildEngine(pc, all);
    for (const fault of this.pod.faults) scheduleFault(this.engine, pc, fault, new Set(all));
  }

  get nowPs(): number {
    return this.engine.horizonPs;
  }

  runTo(timePs: number): void {
    this.engine.runUntil(timePs);
  }

  ctx(node: string): NodeContext {
    return this.engine.context(this.index(node));
  }

  portIndex(node: string, port: string): number {
    const p = this.pod.nodes[this.index(node)]!.ports.find((x) => x.name === port);
    if (p === undefined) throw new Error(`no port ${node}:${port}`);
    return p.index;
  }

  port(node: string, port: string): PortStats {
    return this.ctx(node).stats.ports[this.portIndex(node, port)]!;
  }

  host(name: string): Host {
    const model = this.engine.model(this.index(name));
    if (model?.kind !== 'host') throw new Error(`${name} is not a host`);
    return model;
  }

  nic(name: string): Nic {
    return this.host(name).nic;
  }

  switch(name: string): Switch {
    const model = this.engine.model(this.index(name));
    if (model?.kind !== 'switch') throw new Error(`${name} is not a switch`);
    return model;
  }

  /** Payload bytes `to` has accepted in order from `workloads[workload]`'s connection `from` → `to`. */
  received(workload: number, from: string, to: string): number {
    const key = connectionKey(workload, from, to);
    const qp = this.nic(to).receiverQps.find((r) => r.end.key === key);
    if (qp === undefined) throw new Error(`${to} has no connection ${key}`);
    return qp.resp.stats.bytesDelivered;
  }

  /** PFC frames sent on `node:port` with priority `p` enabled. */
  pfcSent(node: string, port: string, p = 3): number {
    return this.port(node, port).pfcTx[p]!;
  }

  /** Drops everywhere, by reason. */
  drops(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const n of this.pod.nodes) for (const [reason, count] of Object.entries(this.ctx(n.name).stats.droppedByReason())) out[reason] = (out[reason] ?? 0) + count;
    return out;
  }

  /** The conservation audit of `rocelab run` holds now, with no causality violation. */
  assertConserved(): void {
    const r = this.result();
    assert.equal(r.conservation, true, `conservation: ${JSON.stringify(r.packets)}`);
    assert.equal(r.causalityViolations, 0);
  }

  /** The run's result as `rocelab run` would report it now (conservation audit included). */
  result(): RunResult {
    const finals = this.pod.nodes.map((n) => nodeFinal(this.engine, n.index, n.role, { rssBytes: 0, pssBytes: 0 }));
    return assembleResult(finals, { seed: this.pod.seed, profile: this.pod.profile, timing: this.pod.timing, mode: 'inproc', workers: 1, durationPs: this.nowPs, wallMs: 0, startupMs: 0, windows: 0, torOf: torsOfHosts(this.pod) });
  }

  private index(name: string): number {
    const node = this.pod.nodes.find((n) => n.name === name);
    if (node === undefined) throw new Error(`no node ${name}`);
    return node.index;
  }
}
