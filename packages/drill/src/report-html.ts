/**
 * report.html: the same content as report.md on one standalone page — a little CSS, the plots'
 * SVGs inline, no scripts and no external resources (its Content-Security-Policy forbids both,
 * so a browser would refuse and report anything that slipped in). Every text from the report is
 * escaped; an SVG that is not a plain `<svg>` without scripts is left out with a note.
 */
import type { RenderedPlot } from './plots.js';
import type { DrillReport, ExpectationOutcome } from './report-model.js';
import {
  EXPECTATION_HEADER, FAULT_HEADER, RAN_HEADER, SUMMARY_HEADER, TIMELINE_HEADER, expectationRow, faultRow, ranRow, summaryRow, timelineOmittedNote, timelineRow, variantFacts, verdict, verdictSummary, whereOf,
} from './report-text.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'";

const CSS = `
body { font: 15px/1.45 system-ui, sans-serif; color: #222; max-width: 80rem; margin: 2rem auto; padding: 0 1rem; }
h1 { margin-bottom: .3rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; } h3 { margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
code, .hash { font-family: ui-monospace, monospace; font-size: 13px; word-break: break-all; }
.pass { color: #17692e; font-weight: 600; } .fail { color: #b3261e; font-weight: 600; }
td.pass { background: #e7f5ea; } td.fail { background: #fbe9e7; }
.verdict { font-size: 1.15rem; padding: .6rem .9rem; border-radius: 6px; margin: .8rem 0; }
.verdict.pass { background: #e7f5ea; } .verdict.fail { background: #fbe9e7; }
.verdict ul { margin: .3rem 0 0; font-weight: normal; font-size: 15px; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; } figcaption { color: #555; font-size: 13px; }
table.timeline td, table.summary td { white-space: nowrap; }
ul.files { columns: 3; font-size: 13px; }
`;

/** The page; `plots` are the rendered plots (normally those of `report.plots`), each under its variant's section. */
export function reportHtml(report: DrillReport, plots: readonly RenderedPlot[]): string {
  const v = verdict(report);
  const body: string[] = [`<h1>${esc(report.title || report.drill)}</h1>`];
  const failures = v.failed.length === 0 ? '' : `<ul>${v.failed.map((e) => `<li>${failure(e)}</li>`).join('')}</ul>`;
  body.push(`<div class="verdict ${cls(v.pass)}">${v.pass ? 'PASS' : 'FAIL'}: ${esc(verdictSummary(v))}${failures}</div>`);
  if (report.description !== '') body.push(`<p>${esc(report.description)}</p>`);
  body.push(`<p>Drill ${esc(report.drill)} (<code>${esc(report.file)}</code>), mode ${esc(report.mode)}.${report.source === '' ? '' : ` Source: ${esc(report.source)}.`}</p>`);

  body.push('<h2>Summary</h2>', table(SUMMARY_HEADER, report.variants.map(summaryRow), { result: 1, className: 'summary' }));
  body.push('<h2>What ran</h2>', table(RAN_HEADER, report.variants.map((x) => ranRow(x)), { result: 1, hash: 8 }));
  const placed = new Set<RenderedPlot>();
  for (const variant of report.variants) {
    body.push(`<h2 id="variant-${esc(variant.name)}">Variant ${esc(variant.name)}: <span class="${cls(variant.pass)}">${variant.pass ? 'PASS' : 'FAIL'}</span></h2>`);
    if (variant.description !== '') body.push(`<p>${esc(variant.description)}</p>`);
    const mine = plots.filter((p) => p.ref.variant === variant.name);
    for (const p of mine) placed.add(p);
    const picture = mine.filter(isTopology);
    if (picture.length > 0) body.push('<h3>Topology</h3>', ...picture.map(figure));
    if (variant.timeline !== undefined) {
      const note = timelineOmittedNote(variant);
      body.push(
        '<h3>Incident timeline</h3>',
        variant.timeline.length === 0 ? '<p>No PAUSE and no storm detection.</p>' : table(TIMELINE_HEADER, variant.timeline.map(timelineRow), { className: 'timeline' }),
        ...(note === null ? [] : [`<p>${esc(note)}</p>`]),
      );
    }
    body.push('<h3>Faults</h3>', variant.faults.length === 0 ? '<p>None.</p>' : table(FAULT_HEADER, variant.faults.map(faultRow)));
    body.push('<h3>Expectations</h3>', variant.expectations.length === 0 ? '<p>None.</p>' : table(EXPECTATION_HEADER, variant.expectations.map(expectationRow), { result: 6 }));
    const facts = variantFacts(variant).map(([label, text]) => `<li>${esc(label)}: ${esc(text)}</li>`);
    body.push('<h3>Run</h3>', `<ul>${facts.join('')}<li>trace: <code>${esc(variant.traceDir)}</code></li></ul>`);
    if ((variant.files ?? []).length > 0) body.push('<h3>Files</h3>', `<ul class="files">${variant.files!.map((f) => `<li><a href="${esc(encodeURI(f))}">${esc(f)}</a></li>`).join('')}</ul>`);
    const rest = mine.filter((p) => !isTopology(p));
    if (rest.length > 0) body.push('<h3>Plots</h3>', ...rest.map(figure));
  }
  if (report.acrossVariants.length > 0) body.push('<h2>Across variants</h2>', table(EXPECTATION_HEADER, report.acrossVariants.map(expectationRow), { result: 6 }));
  const rest = plots.filter((p) => !placed.has(p));
  if (rest.length > 0) body.push('<h2>Plots</h2>', ...rest.map(figure));

  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(`${v.pass ? 'PASS' : 'FAIL'}: ${report.title || report.drill}`)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const cls = (pass: boolean): string => (pass ? 'pass' : 'fail');

function failure(e: ExpectationOutcome): string {
  return `<code>${esc(e.id)}</code> (${esc(whereOf(e))}): ${esc(e.description)}; measured ${esc(e.measured)}, expected ${esc(e.expected)}: <strong>${esc(e.margin)}</strong>`;
}

/** The topology picture of a variant (`topology-<stem>.svg`), shown before its timeline. */
const isTopology = (p: RenderedPlot): boolean => p.ref.file.startsWith('topology-');

/** A table of text cells; the `result` column is coloured PASS/FAIL, the `hash` column set in monospace. */
function table(header: readonly string[], rows: readonly string[][], columns: { result?: number; hash?: number; className?: string } = {}): string {
  const td = (text: string, i: number): string => {
    if (i === columns.result) return `<td class="${cls(text === 'PASS')}">${esc(text)}</td>`;
    if (i === columns.hash) return `<td class="hash">${esc(text)}</td>`;
    return `<td>${esc(text)}</td>`;
  };
  const head = `<tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  return `<table${columns.className === undefined ? '' : ` class="${columns.className}"`}>\n${head}\n${rows.map((r) => `<tr>${r.map(td).join('')}</tr>`).join('\n')}\n</table>`;
}

function figure(p: RenderedPlot): string {
  const caption = `<figcaption>${esc(p.ref.title)} (${esc(p.ref.file)})</figcaption>`;
  const svg = p.svg.trim();
  if (!isPlainSvg(svg)) return `<figure><p class="fail">plot left out: not a plain SVG</p>${caption}</figure>`;
  return `<figure>\n${svg}\n${caption}</figure>`;
}

/** An `<svg>` element with no script, event handler, foreign object or javascript: URL. */
export function isPlainSvg(svg: string): boolean {
  return /^<svg[\s>]/.test(svg) && /<\/svg>$/.test(svg) && !/<script|<foreignObject|\son[a-z]+\s*=|javascript:/i.test(svg);
}

/** Text as HTML shows it, also inside an attribute value. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
