/**
 * The native programs of a run as text (issue 25), after the rest of `rocelab run`'s summary:
 * per program a header line (where it ran, its command line, how it ended and when in virtual
 * time), then what it printed, indented, as a terminal would have shown it.
 */
import { programEnding, type ProgramReport } from '@rocelab/results';
import type { RunResult } from '@rocelab/runtime';

export function programSection(r: Pick<RunResult, 'programs'>): string[] {
  // A result from an older rocelab has no programs.
  const programs = r.programs ?? [];
  if (programs.length === 0) return [];
  const counts = { running: 0, exited: 0, killed: 0, failed: 0 };
  for (const p of programs) counts[p.status]++;
  const nonZero = programs.filter((p) => p.status === 'exited' && p.exitCode !== 0).length;
  const lines = ['', `programs: ${programs.length}: ${counts.exited} exited${nonZero > 0 ? ` (${nonZero} non-zero)` : ''}, ${counts.killed} killed, ${counts.failed} failed, ${counts.running} running`];
  for (const p of programs) lines.push(...programLines(p));
  return lines;
}

function programLines(p: ProgramReport): string[] {
  const when = p.exitedPs === null ? '' : ` at ${(p.exitedPs / 1e9).toFixed(3)} ms`;
  const lines = [`  ${p.node}[${p.index}] ${p.argv.join(' ')}: ${programEnding(p)}${when}`];
  lines.push(...indented(p.stdout, '    '));
  if (p.stderr !== '') lines.push('    stderr:', ...indented(p.stderr, '      '));
  const unsupported = Object.entries(p.unsupported);
  if (unsupported.length > 0) lines.push(`    not supported by rocelab0 (each failed with EOPNOTSUPP): ${unsupported.map(([name, n]) => `${name} ×${n}`).join(', ')}`);
  return lines;
}

/** Each line of `text` behind `prefix`; a last newline ends the text, it does not open an empty line. */
function indented(text: string, prefix: string): string[] {
  if (text === '') return [];
  return text.replace(/\r?\n$/, '').split(/\r?\n/).map((l) => `${prefix}${l}`.trimEnd());
}
