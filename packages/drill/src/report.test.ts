import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drillPlots } from './plots.js';
import { reportHtml, isPlainSvg } from './report-html.js';
import { md, reportMarkdown } from './report-md.js';
import { allExpectations } from './report-text.js';
import { sampleReport, sampleTables, sampleVariant } from './testing.js';

const decodeHtml = (s: string): string => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
const decodeMd = (s: string): string => s.replace(/\\(.)/g, '$1').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

test('report.md: the verdict first, naming each failing expectation and by how much', () => {
  const text = reportMarkdown(sampleReport());
  const lines = text.split('\n');
  assert.equal(lines[0], '# A stuck receiver');
  assert.equal(lines[2], '**FAIL**: 1 of 5 expectations failed:');
  assert.match(lines[3]!, /^- expect\\\[1\\\] watchdog \(variant watchdog\): .*measured 4\.200 ms after the storm began, expected ≤ 3 ms: \*\*1\.200 ms too late\*\*$/);
  assert.ok(text.endsWith('\n') && !text.endsWith('\n\n'));

  const pass = reportMarkdown(sampleReport({ pass: true, variants: [sampleVariant('watchdog', true)] }));
  assert.match(pass, /^# .*\n\n\*\*PASS\*\*: all 3 expectations held\.\n/);
});

test('report.md: every expectation with measured, expected, margin and result; faults, runs, plots', () => {
  const report = sampleReport({ plots: [{ file: 'queue-watchdog.svg', title: 'watchdog: queue depth', variant: 'watchdog' }, { file: 'all (1).svg', title: 'all', variant: null }] });
  const text = reportMarkdown(report);
  const rows = text.split('\n').filter((l) => l.startsWith('| expect'));
  assert.equal(rows.length, 5);
  for (const e of allExpectations(report)) {
    const row = rows.find((r) => decodeMd(r).startsWith(`| ${e.id} |`));
    assert.ok(row !== undefined, e.id);
    assert.equal(decodeMd(row), `| ${e.id} | ${e.kind} | ${e.description} | ${e.measured} | ${e.expected} | ${e.margin} | ${e.pass ? 'PASS' : 'FAIL'} |`);
  }
  assert.ok(text.includes('| 0 | nicPauseStorm | h4 | 200.000 µs | 700.000 µs | drill | {"priority":3} |'));
  assert.ok(text.includes(`| watchdog | FAIL | inproc | 5 | vendor | drill | 1.000 ms | 120 ms | \`${'ab'.repeat(32)}\` |`));
  assert.ok(text.includes('- probes: 40 sent, 2 lost; p50 5.200 µs, p99 9.800 µs'));
  assert.ok(text.includes('## Variant watchdog: FAIL') && text.includes('## Variant no-watchdog: PASS') && text.includes('## Across variants'));
  assert.ok(text.includes('### Plots\n\n![watchdog: queue depth](queue-watchdog.svg)'));
  assert.ok(text.includes('## Plots\n\n![all](all%20%281%29.svg)'), 'plots of no variant at the end, their file a valid link');
});

test('report.md escapes text from the report: markup, table pipes, line breaks', () => {
  const evil = '<script>alert(1)</script> | *x* [l](u) a_b _c_';
  const text = reportMarkdown(sampleReport({ variants: [sampleVariant(evil, false, { run: { ...sampleVariant('x', true).run, droppedByReason: { out_of_sequence: 3 } } })] }));
  assert.ok(!text.includes('<script'));
  assert.ok(text.includes('&lt;script&gt;alert(1)&lt;/script&gt; \\| \\*x\\* \\[l\\](u) a_b \\_c\\_'));
  assert.ok(text.includes('out_of_sequence 3'), 'underscores inside words stay as they are');
  assert.equal(md('two\nlines'), 'two lines');
});

test('report.html: one standalone page, verdict coloured, every expectation, text escaped, no scripts', async () => {
  const evil = '<script>alert("x")</script>';
  const report = sampleReport({ title: `Drill ${evil}`, variants: [sampleVariant('watchdog', false), sampleVariant(evil, true)] });
  const plots = await drillPlots({ report, tables: new Map([['watchdog', sampleTables()], [evil, sampleTables({ node: evil })]]), runEndUs: new Map([['watchdog', 1000], [evil, 1000]]) });
  const html = reportHtml({ ...report, plots: plots.map((p) => p.ref) }, plots);

  assert.match(html, /^<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
  assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`));
  assert.ok(!/<script|<link|<img|\ssrc=|@import|url\(http/i.test(html), 'no scripts, no external resources');
  assert.ok(html.includes('Drill &#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;'));
  assert.match(html, /<div class="verdict fail">FAIL: 1 of 5 expectations failed:<ul><li><code>expect\[1\] watchdog<\/code> \(variant watchdog\): .*<strong>1\.200 ms too late<\/strong><\/li><\/ul><\/div>/);
  for (const e of allExpectations(report)) {
    const cells = [e.id, e.kind, e.description, e.measured, e.expected, e.margin].map((c) => `<td>${c.replace(/[&<>"']/g, (x) => `&#${x.charCodeAt(0)};`)}</td>`).join('');
    assert.ok(html.includes(`<tr>${cells}<td class="${e.pass ? 'pass' : 'fail'}">${e.pass ? 'PASS' : 'FAIL'}</td></tr>`), e.id);
  }
  assert.equal((html.match(/<svg /g) ?? []).length, 9, 'every plot inline: 4 per variant, and the probe round trips of both on one');
  const ids = [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!);
  assert.equal(new Set(ids).size, ids.length, 'ids unique across the inlined SVGs');
  assert.ok(decodeHtml(html).includes(`Variant ${evil}: `));
});

test('report.html leaves out an SVG that carries a script', () => {
  const bad = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  const html = reportHtml(sampleReport(), [{ ref: { file: 'x.svg', title: 'x', variant: null }, svg: bad }, { ref: { file: 'y.svg', title: 'y', variant: null }, svg: '<svg onload="alert(1)"></svg>' }]);
  assert.ok(!/<script|onload/i.test(html));
  assert.equal((html.match(/plot left out: not a plain SVG/g) ?? []).length, 2);
  assert.ok(isPlainSvg('<svg width="1"><path d="M0,0"/></svg>'));
});

test('a fault drawn at random shows what was drawn and what from, in report.md and report.html', () => {
  const fault = { id: 1, kind: 'kill', target: 'spine1', atNs: 2_275_000, untilNs: 3_591_000, params: { node: 'spine1' }, source: 'drill' as const, drawnFrom: { node: { random: 'switch' }, at: { uniform: ['2ms', '3ms'] }, for: { uniform: ['1ms', '2ms'] } } };
  const host = { ...fault, id: 2, target: 'h4', drawnFrom: { node: { random: ['h4', 'h8'] } } };
  const report = sampleReport({ variants: [sampleVariant('watchdog', true, { faults: [fault, host] })] });
  const text = decodeMd(reportMarkdown(report));
  assert.ok(text.includes('| 1 | kill | spine1 (drawn from any switch) | 2.275 ms (drawn from uniform 2ms–3ms) | 3.591 ms (for 1.316 ms, drawn from uniform 1ms–2ms) | drill | {"node":"spine1"} |'), text);
  assert.ok(text.includes('| 2 | kill | h4 (drawn from h4, h8) | 2.275 ms | 3.591 ms | drill |'), text);
  assert.ok(decodeHtml(reportHtml(report, [])).includes('<td>spine1 (drawn from any switch)</td>'));
});
