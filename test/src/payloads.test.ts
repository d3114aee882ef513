/**
 * Typed payloads (issue 23): what every node reports at the end of a run — its `NodeReport` and a
 * host's results — passes the schemas the controller checks it against (report-wire.ts), through
 * the wire codec, and comes back equal. The pods set every optional part of a report (credit
 * figures, TCP counters, an app, Tagger, a message's transport, probe round trips), so a field
 * added to a report but not to its schema (@rocelab/results payload-schemas.ts) fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostResultsSchema, nodeReportSchema } from '@rocelab/results';
import { Controller } from '@rocelab/controller';
import { buildEngine, CloseCode, closeReason, Connection, fromWireNode, nodeFinal, nodeMemory, podContext, podKey, prepareApps, ReportPayloadError, toWireNode, type NodeFinal } from '@rocelab/runtime';
import { declareAppRegions, loadTopologyFile, parseTopology, schemaValidator, type PodSpec } from '@rocelab/topology';
import { decodeEnvelope, encodeEnvelope, type Envelope, type NodeReport as WireNodeReport } from '@rocelab/wire';
import { pino } from 'pino';
import { fixture, ROOT } from './harness.js';

/** A pod file with one text replacement. */
function edited(path: string, from: string, to: string): PodSpec {
  const text = readFileSync(path, 'utf8');
  assert.ok(text.includes(from), `${path} holds ${from}`);
  return parseTopology(text.replace(from, to), path);
}

const PODS: Array<[string, () => PodSpec, number]> = [
  ['TCP and DCTCP beside RDMA', () => loadTopologyFile(fixture('tcp/mixed.yaml')), 2e9],
  ['apps', () => loadTopologyFile(fixture('apps/send-recv.yaml')), 1e9],
  ['pingmesh', () => loadTopologyFile(fixture('results/pingmesh-rtt.yaml')), 1e9],
  ['credit links', () => edited(join(ROOT, 'drills/pods/credit-vs-pfc.yaml'), 'flowControl: pfc', 'flowControl: credit'), 1e9],
  [
    'Tagger',
    () => edited(join(ROOT, 'drills/pods/deadlock-flooding.yaml'), 'switch: {bufferBytes: 2MiB,', 'switch: {losslessPriorities: [3, 4], dscpMap: {34: 4}, tagger: {lossless: [3, 4], beyond: drop}, bufferBytes: 2MiB,'),
    1e9,
  ],
];

async function finals(pod: PodSpec, durationPs: number): Promise<NodeFinal[]> {
  await declareAppRegions(pod);
  const pc = podContext(pod, pod.seed);
  const all = pod.nodes.map((n) => n.index);
  await prepareApps(pc, all);
  const engine = buildEngine(pc, all, null);
  engine.runUntil(durationPs);
  const memory = nodeMemory(pod.nodes.length, true);
  return all.map((i) => nodeFinal(engine, i, pod.nodes[i]!.role, memory));
}

/** A final report of `f` as the controller reads it: encoded, decoded and checked. */
function travelled(f: NodeFinal): NodeFinal | null {
  const env: Envelope = { type: 'report', report: { lease: 1, hasNextEvent: false, nextEventPs: 0, nodes: [toWireNode(f, true)], links: [], linksFailed: [], linkTotals: [], linkMessages: 0, linkBytes: 0 } };
  const back = decodeEnvelope(encodeEnvelope(env));
  assert.equal(back.type, 'report');
  return fromWireNode(back.type === 'report' ? back.report.nodes[0]! : assert.fail('not a report'));
}

test('the report and results schemas are served by the build\'s standalone code, not compiled in the controller', () => {
  assert.equal(schemaValidator(nodeReportSchema()).source, 'precompiled');
  assert.equal(schemaValidator(hostResultsSchema()).source, 'precompiled');
});

test('every node\'s report and results pass their schemas and travel unchanged; the pods set every optional part', async () => {
  const seen = new Set<string>();
  for (const [name, load, durationPs] of PODS) {
    for (const f of await finals(load(), durationPs)) {
      assert.deepEqual(travelled(f), { ...f, rssBytes: Math.round(f.rssBytes), pssBytes: Math.round(f.pssBytes) }, `${name}: ${f.node}`);
      const r = f.report;
      if (r.ports.some((p) => p.credit !== undefined)) seen.add('credit');
      if (r.host?.tcp !== undefined) seen.add('tcp');
      if (r.app !== undefined) seen.add('app');
      if (r.tagger !== undefined) seen.add('tagger');
      if (f.results?.sent.some((m) => m.transport !== undefined) === true) seen.add('transport');
      if (Object.keys(f.results?.probes.rttPs ?? {}).length > 0) seen.add('probes');
      if (f.results === null) seen.add('switch');
    }
  }
  assert.deepEqual([...seen].sort(), ['app', 'credit', 'probes', 'switch', 'tagger', 'tcp', 'transport']);
});

test('a report that is not a node report is refused with the node and the field, not cast', async () => {
  const [f] = (await finals(loadTopologyFile(fixture('results/single-flow.yaml')), 1e8)).filter((n) => n.results !== null);
  const wire = toWireNode(f!, true);
  const withKey = { ...wire, stats: { ...wire.stats!, reportJson: JSON.stringify({ ...f!.report, color: 'red' }) } };
  assert.throws(() => fromWireNode(withKey), (err: unknown) => err instanceof ReportPayloadError && err.message === `node ${f!.node}: stats.reportJson.color: expected one of the keys node, role, ports, host, app, programs, tagger, got unknown key "color"`);
  const notJson = { ...wire, stats: { ...wire.stats!, resultsJson: '{"sent":' } };
  assert.throws(() => fromWireNode(notJson), (err: unknown) => err instanceof ReportPayloadError && err.message === `node ${f!.node}: stats.resultsJson: expected JSON, got "{\\"sent\\":"`);
  const badStatus = { ...wire, stats: { ...wire.stats!, resultsJson: JSON.stringify({ ...f!.results!, sent: [{ ...f!.results!.sent[0]!, status: 'fine' }] }) } };
  assert.throws(() => fromWireNode(badStatus), (err: unknown) => err instanceof ReportPayloadError && /^node \w+: stats\.resultsJson\.sent\[0\]\.status: expected .*got "fine"/.test(err.message));
});

test('the controller closes the connection of a member whose report does not fit (protocol), naming the node and the field', { timeout: 60_000 }, async () => {
  const pod = loadTopologyFile(fixture('results/single-flow.yaml'));
  const [f] = (await finals(pod, 1e6)).filter((n) => n.results !== null);
  const log = pino({ level: 'silent' });
  const controller = new Controller({ pod, seed: pod.seed, durationPs: 1e9, dilation: 0, token: 'the-pod-token', expected: null, mode: 'procs', log });
  controller.result.catch(() => undefined);
  const { url } = await controller.listen();
  try {
    const conn = await Connection.connect(url, podKey('the-pod-token'), { node: 'm1', role: 'member', link: '', nodes: pod.nodes.map((n) => n.name), linkUrl: '', metricsUrls: [] }, log);
    const closed = new Promise<[number, string]>((resolve) => {
      conn.listen(
        (env) => {
          const report = (lease: number, nodes: WireNodeReport[]) =>
            conn.send({ type: 'report', report: { lease, hasNextEvent: false, nextEventPs: 0, nodes, links: [], linksFailed: [], linkTotals: [], linkMessages: 0, linkBytes: 0 } });
          if (env.type === 'directory') report(0, []);
          if (env.type === 'grant') {
            const wire = toWireNode(f!, false);
            report(env.grant.lease, [{ ...wire, stats: { ...wire.stats!, reportJson: JSON.stringify({ ...f!.report, color: 'red' }) } }]);
          }
        },
        (code, reason) => resolve([code, reason]),
      );
    });
    // A close reason holds 123 bytes: the error as the controller logs it, cut to fit.
    assert.deepEqual(await closed, [CloseCode.protocol, closeReason(`node ${f!.node}: stats.reportJson.color: expected one of the keys node, role, ports, host, app, programs, tagger, got unknown key "color"`)]);
  } finally {
    await controller.close();
  }
});
