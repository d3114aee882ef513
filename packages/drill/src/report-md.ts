/**
 * report.md: the drill report as CommonMark (GitHub tables). The verdict comes first, naming
 * each failing expectation and by how much; then what ran, each variant's faults, expectations,
 * headline numbers and plots, and the expectations across variants. Text from the report
 * (names, descriptions) is escaped, so a node called `<script>` stays text.
 */
import type { DrillReport, ExpectationOutcome, PlotRef } from './report-model.js';
import {
  EXPECTATION_HEADER, FAULT_HEADER, RAN_HEADER, SUMMARY_HEADER, TIMELINE_HEADER, expectationRow, faultRow, ranRow, summaryRow, timelineOmittedNote, timelineRow, variantFacts, verdict, verdictSummary, whereOf,
} from './report-text.js';

/** The report as markdown; its plots are `report.plots`, as image links under their variant (or at the end). */
export function reportMarkdown(report: DrillReport): string {
  const v = verdict(report);
  const out: string[] = [`# ${md(report.title || report.drill)}`, ''];
  out.push(`**${v.pass ? 'PASS' : 'FAIL'}**: ${md(verdictSummary(v))}`);
  for (const e of v.failed) out.push(`- ${failure(e)}`);
  out.push('');
  if (report.description !== '') out.push(md(report.description), '');
  out.push(`Drill ${md(report.drill)} (${md(report.file)}), mode ${md(report.mode)}.${report.source === '' ? '' : ` Source: ${md(report.source)}.`}`, '');

  out.push('## Summary', '', ...table(SUMMARY_HEADER, report.variants.map(summaryRow)), '');
  out.push('## What ran', '', ...table(RAN_HEADER, report.variants.map((x) => ranRow(x)), [8]), '');
  const placed = new Set<PlotRef>();
  for (const variant of report.variants) {
    out.push(`## Variant ${md(variant.name)}: ${variant.pass ? 'PASS' : 'FAIL'}`, '');
    if (variant.description !== '') out.push(md(variant.description), '');
    if (variant.timeline !== undefined) {
      const note = timelineOmittedNote(variant);
      out.push('### Incident timeline', '', ...(variant.timeline.length === 0 ? ['No PAUSE and no storm detection.'] : table(TIMELINE_HEADER, variant.timeline.map(timelineRow))), ...(note === null ? [] : ['', md(note)]), '');
    }
    out.push('### Faults', '', ...(variant.faults.length === 0 ? ['None.'] : table(FAULT_HEADER, variant.faults.map(faultRow))), '');
    out.push('### Expectations', '');
    out.push(...(variant.expectations.length === 0 ? ['None.'] : table(EXPECTATION_HEADER, variant.expectations.map(expectationRow))), '');
    out.push('### Run', '', ...variantFacts(variant).map(([label, text]) => `- ${md(label)}: ${md(text)}`), `- trace: ${md(variant.traceDir)}`, '');
    if ((variant.files ?? []).length > 0) out.push('### Files', '', ...variant.files!.map((f) => `- [${md(f)}](${link(f)})`), '');
    const plots = report.plots.filter((p) => p.variant === variant.name);
    for (const p of plots) placed.add(p);
    if (plots.length > 0) out.push('### Plots', '', ...plots.flatMap((p) => [image(p), '']));
  }
  if (report.acrossVariants.length > 0) out.push('## Across variants', '', ...table(EXPECTATION_HEADER, report.acrossVariants.map(expectationRow)), '');
  const rest = report.plots.filter((p) => !placed.has(p));
  if (rest.length > 0) out.push('## Plots', '', ...rest.flatMap((p) => [image(p), '']));
  return `${out.join('\n').trimEnd()}\n`;
}

/** `expect[2]` (variant storm): what must hold — measured …, expected …: margin. */
function failure(e: ExpectationOutcome): string {
  return `${md(e.id)} (${md(whereOf(e))}): ${md(e.description)}; measured ${md(e.measured)}, expected ${md(e.expected)}: **${md(e.margin)}**`;
}

/** A GitHub table; the columns in `code` are shown as code spans when their text allows. */
function table(header: readonly string[], rows: readonly string[][], code: readonly number[] = []): string[] {
  const cell = (text: string, i: number): string => (code.includes(i) && /^[0-9A-Za-z]+$/.test(text) ? `\`${text}\`` : md(text));
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), `|${header.map(() => ' --- ').join('|')}|`, ...rows.map(line)];
}

function image(p: PlotRef): string {
  return `![${md(p.title)}](${link(p.file)})`;
}

/** A relative file name as a link target: encoded, parentheses too. */
const link = (file: string): string => encodeURI(file).replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'));

/**
 * Text as CommonMark shows it: entities for `&`, `<`, `>`; backslashes before the characters
 * that start emphasis, code, links or table cells; `_` only where it could start emphasis (not
 * inside a word, so `out_of_sequence` stays readable); line breaks as spaces.
 */
export function md(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*[\]|#!~]/g, (c) => `\\${c}`)
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_');
}
