/**
 * A drill report as a person opens it: a real run (`rocelab run stuck-receiver.yaml --trace`),
 * its trace tables, a small hand-built report around it (one passing and one failing
 * expectation, the `nicPauseStorm` on h4 at 2 ms), plots and report.html written to a
 * directory — then opened in a real headless Chromium. The dumped DOM must hold every plot as a
 * non-empty `<svg>`, the screenshot must show them painted, and the page must log nothing to
 * the console.
 *
 * Console messages: Chromium with `--enable-logging=stderr` prints each console message of the
 * page to stderr as `[pid:tid:time:INFO:CONSOLE:line] "message", source: url (line)` (older
 * versions: `INFO:CONSOLE(line)`), whatever its level — errors and logs alike. The report has
 * no scripts, so any such line is the browser complaining: a load its Content-Security-Policy
 * refused, a refused inline script or style. A control page (an inline script calling
 * console.error, an external image, under the report's CSP) shows the check sees both.
 * `--dump-dom` and `--screenshot` wait for the load event, and every resource of the report is
 * inline, so no `--virtual-time-budget` is needed.
 *
 * Needs Chromium (`/usr/bin/chromium` on Debian; ROCELAB_CHROMIUM names another binary).
 * Without it the tests are skipped — unless ROCELAB_REQUIRE_BROWSER=1, which makes that a
 * failure. Every spawn is bounded by a timeout.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { after, before, test, type TestContext } from 'node:test';
import { drillPlots, reportHtml, reportMarkdown, type DrillReport, type RenderedPlot, type VariantRun } from '@rocelab/drill';
import { TRACE_FILE_NAMES, parseTraceFile, type TraceTables } from '@rocelab/results';
import type { RunResult } from '@rocelab/runtime';
import { cli, fixture, ROOT, toolReady } from './harness.js';

const CHROMIUM = process.env.ROCELAB_CHROMIUM ?? 'chromium';
const BROWSER_TIMEOUT_MS = 60_000;
const CSP = "default-src 'none'; style-src 'unsafe-inline'";
/** Without a sandbox (containers run as root), GPU, or anything that reaches the network. */
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-crash-reporter', '--enable-logging=stderr', '--log-level=0',
];
const WINDOW = { width: 1280, height: 2400 };

let missing: string | null = null;
let work = '';

before(() => {
  const probe = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: BROWSER_TIMEOUT_MS });
  if (probe.error !== undefined || probe.status !== 0 || !/Chrom/.test(probe.stdout)) missing = `${CHROMIUM} does not run (${probe.error?.message ?? probe.stderr.trim()})`;
  work = mkdtempSync(join(tmpdir(), 'rocelab-browser-'));
});

after(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

const needsBrowser = (t: TestContext): boolean => toolReady(t, missing, 'ROCELAB_REQUIRE_BROWSER');

/** One headless Chromium on `page` with its own profile; its stdout and the console lines of its stderr. */
function chromium(page: string, args: string[]): { stdout: string; console: string[] } {
  const profile = mkdtempSync(join(work, 'profile-'));
  const run = spawnSync(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, ...args, pathToFileURL(page).href], {
    encoding: 'utf8',
    timeout: BROWSER_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, XDG_CONFIG_HOME: profile, XDG_CACHE_HOME: profile },
  });
  assert.equal(run.error, undefined, `chromium ${args.join(' ')}: ${run.error?.message}`);
  assert.equal(run.status, 0, `chromium ${args.join(' ')}: ${run.stderr}`);
  return { stdout: run.stdout, console: run.stderr.split('\n').filter((line) => /:CONSOLE[:(]/.test(line)) };
}

test('the console check sees a script\'s console.error and a load the CSP refuses', (t) => {
  if (!needsBrowser(t)) return;
  const script = join(work, 'control-script.html');
  writeFileSync(script, '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script>console.error("control-error")</script></body></html>');
  assert.ok(chromium(script, ['--dump-dom']).console.some((line) => line.includes('"control-error"')));
  const refused = join(work, 'control-csp.html');
  writeFileSync(refused, `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"></head><body><img src="http://example.invalid/x.png"></body></html>`);
  assert.ok(chromium(refused, ['--dump-dom']).console.some((line) => line.includes('Content Security Policy')));
});

interface Written {
  dir: string;
  plots: RenderedPlot[];
}

let written: Promise<Written> | null = null;

/** Runs the stuck receiver once and writes its report (report.html, report.md, the SVGs). */
function writeReport(): Promise<Written> {
  written ??= makeReport();
  return written;
}

async function makeReport(): Promise<Written> {
  const dir = mkdtempSync(join(work, 'report-'));
  const trace = join(dir, 'trace', 'watchdog');
  mkdirSync(trace, { recursive: true });
  const r = cli(['run', fixture('switch/stuck-receiver.yaml'), '--duration', '6ms', '--json', '--trace', trace]);
  assert.equal(r.status, 0, r.stderr);
  const tables: TraceTables = {};
  for (const name of TRACE_FILE_NAMES) {
    const path = join(trace, name);
    if (existsSync(path)) Object.assign(tables, { [name]: parseTraceFile({ name, path, text: readFileSync(path, 'utf8') }).rows });
  }
  const report = stuckReceiverReport(r.json!, tables);
  // The flows start at 0 µs, so trace time (from the first post) is virtual time.
  const plots = await drillPlots({ report, tables: new Map([['watchdog', tables]]), runEndUs: new Map([['watchdog', 6000]]) });
  report.plots = plots.map((p) => p.ref);
  for (const p of plots) writeFileSync(join(dir, p.ref.file), p.svg);
  writeFileSync(join(dir, 'report.md'), reportMarkdown(report));
  writeFileSync(join(dir, 'report.html'), reportHtml(report, plots));
  return { dir, plots };
}

/** Two expectations over the real run: the watchdog detects the storm in time (holds), no flow stalls (does not). */
function stuckReceiverReport(result: RunResult, tables: TraceTables): DrillReport {
  const detected = (tables['events.csv'] ?? []).find((e) => e.event === 'pfcwd_storm_detected' && e.node === 'tor2' && e.port === 'p2');
  assert.ok(detected !== undefined, 'the watchdog on tor2:p2 detected the storm');
  const afterMs = (detected.timeUs - 2000) / 1000;
  const run: VariantRun = {
    mode: result.mode, seed: result.seed, profile: result.profile, timing: result.timing, traceHash: result.traceHash, virtualNs: result.virtualNs,
    wallMs: result.wallMs, conservation: result.conservation, packets: result.packets, droppedByReason: result.droppedByReason,
    flows: result.flowTotals, pauseFramesSent: result.summary.portTotals.pauseFramesSent, pausedPorts: result.summary.portTotals.pausedPorts,
    probes: { sent: result.probes.sent, lost: result.probes.lost, p50Ns: result.probes.p50Ns, p99Ns: result.probes.p99Ns },
    failedApps: [],
  };
  const stalled = result.flowTotals.stalled;
  return {
    drill: 'stuck-receiver', title: 'A stuck receiver <h4> & the PFC watchdog', description: 'h4 pauses tor2 from 2 ms and never stops; the watchdog on tor2:p2 breaks the chain.',
    source: 'Guo et al., RDMA over Commodity Ethernet at Scale, SIGCOMM 2016', file: 'test/fixtures/switch/stuck-receiver.yaml', mode: result.mode, pass: false,
    variants: [{
      name: 'watchdog', description: 'the watchdog on tor2:p2, action drop', pass: false, run, traceDir: 'trace/watchdog',
      audit: { pass: result.conservation, conservation: result.conservation, causalityViolations: 0, offBy: 0, text: 'the audit' }, incidents: [],
      faults: [{ id: 0, kind: 'nicPauseStorm', target: 'h4', atNs: 2_000_000, untilNs: null, params: {}, source: 'topology' }],
      expectations: [
        {
          id: 'expect[0]', kind: 'watchdogDetects', variant: 'watchdog', description: 'tor2:p2 priority 3: the watchdog detects the storm within 4 ms', pass: afterMs <= 4,
          measured: `${afterMs.toFixed(3)} ms after the storm began`, expected: '≤ 4 ms', margin: `${(4 - afterMs).toFixed(3)} ms to spare`, value: afterMs * 1e9,
        },
        {
          id: 'expect[1]', kind: 'noStall', variant: 'watchdog', description: 'no flow stalls', pass: stalled === 0,
          measured: `${stalled} flows stalled`, expected: '0', margin: `${stalled} too many`, value: stalled,
        },
      ],
    }],
    acrossVariants: [],
    plots: [],
  };
}

test('report.html in Chromium: every plot is an inline <svg> with content, and the console stays quiet', async (t) => {
  if (!needsBrowser(t)) return;
  const { dir, plots } = await writeReport();
  assert.deepEqual(plots.map((p) => p.ref.file), ['queue-watchdog.svg', 'pauses-watchdog.svg', 'rates-watchdog.svg'], 'no probes in this pod');
  const page = chromium(join(dir, 'report.html'), ['--dump-dom']);
  assert.deepEqual(page.console, [], 'no console messages');
  const dom = page.stdout;
  assert.match(dom, /<div class="verdict fail">FAIL: 1 of 2 expectations failed:/);
  assert.ok(dom.includes('A stuck receiver &lt;h4&gt; &amp; the PFC watchdog'), 'escaped title, parsed as text');
  const figures = [...dom.matchAll(/<figure>([\s\S]*?)<\/figure>/g)].map((m) => m[1]!);
  assert.equal(figures.length, plots.length);
  figures.forEach((figure, i) => {
    const svg = /<svg\b[\s\S]*<\/svg>/.exec(figure)?.[0] ?? '';
    const drawn = (svg.match(/<(path|line|text)\b/g) ?? []).length;
    assert.ok(drawn > 20, `${plots[i]!.ref.file}: ${drawn} drawn elements in the DOM`);
    assert.ok(figure.includes(plots[i]!.ref.title));
  });
  assert.ok(dom.includes('nicPauseStorm h4'), 'the fault rule is labelled');
});

test('report.html in Chromium: the screenshot shows the plots painted, and the console stays quiet', async (t) => {
  if (!needsBrowser(t)) return;
  const { dir } = await writeReport();
  const png = join(dir, 'report.png');
  const shot = chromium(join(dir, 'report.html'), [`--screenshot=${png}`, `--window-size=${WINDOW.width},${WINDOW.height}`]);
  assert.deepEqual(shot.console, [], 'no console messages');
  const image = decodePng(readFileSync(png));
  assert.deepEqual([image.width, image.height], [WINDOW.width, WINDOW.height]);
  // Text and table borders are grey or black; the plots' lines and heatmap cells are colour.
  // The fully paused heatmap cells alone cover tens of thousands of pixels.
  let coloured = 0;
  for (let i = 0; i < image.pixels.length; i += image.channels) {
    const [r, g, b] = [image.pixels[i]!, image.pixels[i + 1]!, image.pixels[i + 2]!];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
  }
  assert.ok(coloured > 20_000, `${coloured} coloured pixels`);
});

/** 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as raw pixels. */
function decodePng(png: Buffer): { width: number; height: number; channels: number; pixels: Uint8Array } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, colour, , , interlace] = png.subarray(24, 29);
  assert.ok(depth === 8 && (colour === 2 || colour === 6) && interlace === 0, `PNG depth ${depth}, colour type ${colour}, interlace ${interlace}`);
  const channels = colour === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      assert.ok(predictor !== undefined, `PNG filter ${filter}`);
      pixels[y * stride + x] = (v + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/**
 * Issue 24: a real drill run (`nic-pause-storm`, variant `switch-watchdog`: h4 storms tor2 from
 * 2 ms, the watchdog on tor2:p2 detects it at 5 ms and drops) and its report.html opened in
 * Chromium. From the DOM: the summary across variants at the top, the incident timeline's rows
 * (h4 starts it, tor2:p2 is paused by h4:p0 and its watchdog detects the storm, the pause climbs
 * tor2:up1 → leaf2 → spine1), and the topology picture's links coloured by what happened — the
 * storming link stuck and dropping, the links the pause climbed paused, others grey.
 */
test('report.html of a drill run in Chromium: the summary, the incident timeline rows and the coloured links of the topology picture', (t) => {
  if (!needsBrowser(t)) return;
  const out = mkdtempSync(join(work, 'drill-'));
  const run = cli(['drill', 'run', join(ROOT, 'drills', 'nic-pause-storm.yaml'), '--variant', 'switch-watchdog', '--out', out], {}, 300_000);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^variant switch-watchdog: who paused whom$/m, 'the terminal prints the timeline too');
  const page = chromium(join(out, 'report.html'), ['--dump-dom']);
  assert.deepEqual(page.console, [], 'no console messages');
  const dom = page.stdout;
  assert.ok(dom.indexOf('<h2>Summary</h2>') < dom.indexOf('<h2>What ran</h2>'), 'the summary across variants comes first');
  const summary = /<table class="summary">([\s\S]*?)<\/table>/.exec(dom)?.[1] ?? '';
  assert.match(summary, /<td>switch-watchdog<\/td><td class="pass">PASS<\/td><td>(\d+) of \1<\/td><td>\d+ frames<\/td><td>\d+ ports<\/td><td>[\d.]+ ms<\/td><td>at 5\.000 ms<\/td><td>\d+ packets<\/td>/);

  const timeline = /<table class="timeline">([\s\S]*?)<\/table>/.exec(dom)?.[1] ?? '';
  const rows = [...timeline.matchAll(/<tr>((?:<td>[^<]*<\/td>)+)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]!));
  const row = (port: string): string[] | undefined => rows.find((r) => r[0] === port);
  assert.deepEqual(row('h4:p0')?.slice(0, 7), ['h4:p0', '3', '2.000 ms', '–', '–', '–', 'starts here'], 'h4 starts the storm at 2 ms');
  const tor = row('tor2:p2');
  assert.ok(tor !== undefined, `tor2:p2 in the timeline: ${JSON.stringify(rows)}`);
  assert.deepEqual([tor[3]!.endsWith(' ms'), tor[5], tor[7]], [true, 'h4:p0', '5.000 ms'], 'paused by h4, detected by its watchdog at 5 ms');
  assert.deepEqual(row('tor2:up1')?.[6], 'tor2:p2', 'tor2 pauses its uplink because tor2:p2 is paused');
  assert.equal(row('spine1:down2')?.[5], 'leaf2:up1', 'the pause reaches the spine');
  assert.deepEqual(rows[0]![0], 'h4:p0', 'in order of first activity');

  const svg = /<svg[^>]*class="topology"[\s\S]*?<\/svg>/.exec(dom)?.[0] ?? '';
  const links = new Map([...svg.matchAll(/<line class="link([^"]*)" data-link="([^"]*)" data-state="([^"]*)"[^>]*stroke="([^"]*)"/g)].map((m) => [m[2]!, { classes: m[1]!.trim().split(' ').filter(Boolean), state: m[3]!, stroke: m[4]! }]));
  const storm = links.get('h4:p0 tor2:p2');
  assert.deepEqual(storm, { classes: ['stuck', 'dropping', 'paused'], state: 'stuck', stroke: '#c62828' }, 'the storming link: stuck (detected), dropping (the watchdog drops), paused');
  assert.equal(links.get('tor2:up1 leaf2:down1')?.classes.includes('paused'), true, 'the pause climbed to leaf2');
  assert.ok([...links.values()].some((l) => l.state === 'ok' && l.stroke === '#b0b0b0'), 'untouched links stay grey');
  assert.ok(dom.includes('<a href="switch-watchdog/trace/pfc.csv">'), 'the trace CSVs are linked');
});
