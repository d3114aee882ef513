// The incident parts of a drill report (issue 24): the summary across variants, the timeline,
// the topology picture with its coloured links, the links to the variant's files, and the fault
// labels' lanes above the plots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueueRow, TimelineEntry } from '@rocelab/results';
import { linkStates, STUCK_US } from './link-states.js';
import { labelLanes } from './plot-specs.js';
import { reportHtml } from './report-html.js';
import { reportMarkdown } from './report-md.js';
import type { LinkOutcome, TimelineRow } from './report-model.js';
import { sampleReport, sampleVariant } from './testing.js';
import { LINK_COLOURS, topologySvg } from './topology-svg.js';

const decodeHtml = (s: string): string => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

const entry = (port: string, over: Partial<TimelineEntry> = {}): TimelineEntry => ({
  port, priority: 3, firstPauseSentUs: null, firstPauseReceivedUs: null, pausedUs: 0, pausedBy: null, cause: null, watchdogDetectedUs: null, watchdogRestoredUs: null, ...over,
});
const queue = (timeUs: number, node: string, port: string, queueBytes: number, txPackets: number): QueueRow => ({
  run: '', timeUs, node, port, priority: 3, queueBytes, thresholdBytes: 0, ingressBytes: 0, headroomBytes: 0, paused: false, pausing: false, ecnMarks: 0, txPackets,
});

const LINKS = [
  { a: 'spine1:down1', b: 'tor1:up1' },
  { a: 'spine1:down2', b: 'tor2:up1' },
  { a: 'tor1:p1', b: 'h1:p0' },
  { a: 'tor2:p2', b: 'h4:p0' },
];

test('linkStates: paused from the timeline, stuck from a detection or a queue that sent nothing with bytes held, dropping from the ports\' drops', () => {
  const timeline = [entry('tor2:p2', { pausedUs: 3000, watchdogDetectedUs: 5000 }), entry('spine1:down2', { pausedUs: 40 })];
  // tor1:p1 holds bytes and sends nothing from 100 µs to 100 + STUCK_US; spine1:down1 keeps sending.
  const queueRows = [0, 100, 150, 100 + STUCK_US].flatMap((t) => [queue(t, 'tor1', 'p1', t === 0 ? 0 : 5000, 7), queue(t, 'spine1', 'down1', 5000, t)]);
  const states = linkStates({ links: LINKS, timeline, queue: queueRows, drops: new Map([['tor2:p2', { watchdog: 4215, buffer: 0 }]]) });
  assert.deepEqual(states.map((l) => l.states), [[], ['paused'], ['stuck'], ['stuck', 'dropping', 'paused']]);
  assert.deepEqual(states[3]!.notes, ['tor2:p2 → h4:p0 paused 3.000 ms', 'storm detected at tor2:p2', 'tor2:p2 dropped 4215 watchdog']);
  assert.deepEqual(states[2]!.notes, ['tor1:p1 sent nothing for 100.000 µs with bytes queued']);
  // One sample short of the stall: not stuck.
  const short = linkStates({ links: LINKS, timeline: [], queue: queueRows.filter((r) => r.timeUs < 100 + STUCK_US), drops: new Map() });
  assert.deepEqual(short[2]!.states, []);
});

const NODES = [
  { name: 'spine1', role: 'spine' }, { name: 'tor1', role: 'tor' }, { name: 'tor2', role: 'tor' }, { name: 'h1', role: 'host' }, { name: 'h4', role: 'host' },
];
const OUTCOMES: LinkOutcome[] = [
  { a: 'spine1:down1', b: 'tor1:up1', states: [], notes: [] },
  { a: 'spine1:down2', b: 'tor2:up1', states: ['paused'], notes: ['spine1:down2 → tor2:up1 paused 40.000 µs'] },
  { a: 'tor1:p1', b: 'h1:p0', states: ['dropping'], notes: ['tor1:p1 dropped 3 buffer'] },
  { a: 'tor2:p2', b: 'h4:p0', states: ['stuck', 'paused'], notes: ['storm detected at tor2:p2'] },
];

test('topologySvg: ELK places the tiers top to bottom; each link coloured by its worst state, with its notes; the same input gives the same bytes', async () => {
  const svg = await topologySvg('storm <h4>', NODES, OUTCOMES);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="topology"/);
  assert.ok(svg.endsWith('</svg>') && !/<script|\son[a-z]+=/i.test(svg));
  assert.ok(svg.includes('<title>storm &#60;h4&#62;</title>'));
  const links = [...svg.matchAll(/<line class="([^"]*)" data-link="([^"]*)" data-state="([^"]*)"[^>]*stroke="([^"]*)"/g)].map((m) => [m[2], m[1], m[3], m[4]]);
  assert.deepEqual(links, [
    ['spine1:down1 tor1:up1', 'link', 'ok', LINK_COLOURS.ok],
    ['spine1:down2 tor2:up1', 'link paused', 'paused', LINK_COLOURS.paused],
    ['tor1:p1 h1:p0', 'link dropping', 'dropping', LINK_COLOURS.dropping],
    ['tor2:p2 h4:p0', 'link stuck paused', 'stuck', LINK_COLOURS.stuck],
  ]);
  const y = (name: string): number => Number(new RegExp(`data-node="${name}"><rect x="[^"]*" y="([^"]*)"`).exec(svg)![1]);
  assert.ok(y('spine1') < y('tor1') && y('tor1') === y('tor2') && y('tor2') < y('h4'), 'spine above the ToRs above the hosts');
  assert.equal(await topologySvg('storm <h4>', NODES, OUTCOMES), svg, 'deterministic');
});

const TIMELINE: TimelineRow[] = [
  { port: 'h4:p0', priority: 3, firstPauseSentNs: 2_000_000, firstPauseReceivedNs: null, pausedNs: 0, pausedBy: null, cause: null, watchdogDetectedNs: 4_000_000, watchdogRestoredNs: null },
  { port: 'tor2:p2', priority: 3, firstPauseSentNs: null, firstPauseReceivedNs: 2_000_512, pausedNs: 7_500, pausedBy: 'h4:p0', cause: null, watchdogDetectedNs: 5_000_000, watchdogRestoredNs: 5_200_000 },
  { port: 'tor2:up1', priority: 3, firstPauseSentNs: 2_176_000, firstPauseReceivedNs: null, pausedNs: 0, pausedBy: null, cause: 'tor2:p2', watchdogDetectedNs: null, watchdogRestoredNs: null },
];

function incidentReport() {
  const storm = sampleVariant('storm', false, { timeline: TIMELINE, timelineOmitted: 2, links: OUTCOMES, files: ['storm/trace/pfc.csv', 'storm/pcap/tor2 p2.pcap'] });
  const calm = sampleVariant('calm', true, { timeline: [] });
  return sampleReport({ variants: [storm, calm] });
}

test('report.md: the summary across variants first, then per variant the incident timeline with units, and its files', () => {
  const text = reportMarkdown(incidentReport());
  const summary = text.indexOf('## Summary');
  assert.ok(summary > 0 && summary < text.indexOf('## What ran') && summary < text.indexOf('## Variant storm'));
  assert.ok(text.includes('| storm | FAIL | 1 of 2 | 12 frames | 2 ports | 7.500 µs | at 4.000 ms | 7 packets | 1 of 3 flows | 9.800 µs |'), text);
  assert.ok(text.includes('| calm | PASS | 2 of 2 | 12 frames | 2 ports | none | none | 7 packets | 1 of 3 flows | 9.800 µs |'));
  assert.ok(text.includes('| port | priority | first PAUSE sent | first PAUSE received | paused for | paused by | because | watchdog detected | restored |'));
  assert.ok(text.includes('| h4:p0 | 3 | 2.000 ms | – | – | – | starts here | 4.000 ms | – |'));
  assert.ok(text.includes('| tor2:p2 | 3 | – | 2.001 ms | 7.500 µs | h4:p0 | – | 5.000 ms | 5.200 ms |'));
  assert.ok(text.includes('| tor2:up1 | 3 | 2.176 ms | – | – | – | tor2:p2 | – | – |'));
  assert.ok(text.includes('… and 2 more transmitters'));
  assert.ok(text.includes('No PAUSE and no storm detection.'), 'a traced variant without an incident says so');
  assert.ok(text.includes('- [storm/trace/pfc.csv](storm/trace/pfc.csv)') && text.includes('(storm/pcap/tor2%20p2.pcap)'));
});

test('report.html: summary table at the top, the timeline table, the topology picture before it, links to the files', () => {
  const report = incidentReport();
  const picture = { ref: { file: 'topology-storm.svg', title: 'storm: topology', variant: 'storm' }, svg: '<svg class="topology"><line class="link stuck"/></svg>' };
  const html = reportHtml(report, [picture]);
  assert.ok(html.indexOf('<h2>Summary</h2>') < html.indexOf('<h2>What ran</h2>'));
  assert.ok(html.includes('<table class="summary">'));
  const timeline = /<table class="timeline">([\s\S]*?)<\/table>/.exec(html)![1]!;
  assert.equal((timeline.match(/<tr>/g) ?? []).length, 1 + TIMELINE.length);
  assert.ok(decodeHtml(timeline).includes('<tr><td>tor2:p2</td><td>3</td><td>–</td><td>2.001 ms</td><td>7.500 µs</td><td>h4:p0</td><td>–</td><td>5.000 ms</td><td>5.200 ms</td></tr>'));
  const at = (s: string): number => html.indexOf(s);
  assert.ok(at('<h3>Topology</h3>') < at('<h3>Incident timeline</h3>') && at('<h3>Incident timeline</h3>') < at('<h3>Faults</h3>'));
  assert.ok(at('<svg class="topology">') > at('<h3>Topology</h3>') && !html.includes('<h3>Plots</h3>'), 'the picture is not repeated among the plots');
  assert.ok(html.includes('<li><a href="storm/trace/pfc.csv">storm/trace/pfc.csv</a></li>'));
  assert.ok(html.includes('<a href="storm/pcap/tor2%20p2.pcap">'));
});

test('fault labels take lanes above the plot: neighbours step down, a label at the right edge runs left of its rule', () => {
  const marks = [{ t: 100, label: 'nicPauseStorm h4' }, { t: 110, label: 'kill spine1' }, { t: 900, label: 'far' }, { t: 995, label: 'nicPauseStorm ends' }];
  assert.deepEqual(labelLanes(marks, 1000, 720), [{ lane: 0, align: 'left' }, { lane: 1, align: 'left' }, { lane: 0, align: 'left' }, { lane: 1, align: 'right' }]);
  // Many labels at one instant never take more than 4 lanes.
  const crowd = Array.from({ length: 9 }, (_, i) => ({ t: 10, label: `fault ${i}` }));
  assert.ok(labelLanes(crowd, 1000, 720).every((l) => l.lane < 4));
});
