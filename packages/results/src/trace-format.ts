/**
 * How trace rows are printed, the same in every process so the files are byte-identical in
 * every mode: times as µs from the run's start with six decimals (exact picoseconds), rates in
 * Gb/s and α with six decimals, byte counts as integers, an empty field for "no value".
 *
 * Each node writes its rows into a part of its own, every line prefixed with an integer sort
 * key (picoseconds) and a tab; `mergeParts` orders the parts' rows by (key, node) — a node's
 * own rows stay in the order it wrote them — and adds the header.
 */

/** Picoseconds since `startPs`, as µs with six decimals (exact: 1 ps = 0.000001 µs). */
export function formatUs(timePs: number, startPs: number): string {
  const d = timePs - startPs;
  const abs = Math.abs(d);
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs - whole * 1_000_000).padStart(6, '0');
  return `${d < 0 ? '-' : ''}${whole}.${frac}`;
}

/** A non-negative quantity with six decimals (rates in Gb/s, α); empty for null. */
export function fixed6(value: number | null): string {
  return value === null ? '' : value.toFixed(6);
}

/** One line of a node's part: the sort key, a tab, the CSV row. */
export function partLine(keyPs: number, fields: ReadonlyArray<string | number>): string {
  return `${keyPs}\t${fields.join(',')}\n`;
}

/**
 * The CSV text of one trace file: `header`, then every row of `parts` (one text per node, in
 * node order) sorted by its key, rows of one key in node order, each node's in its own order.
 */
export function mergeParts(header: readonly string[], parts: readonly string[]): string {
  const rows: Array<{ key: number; node: number; seq: number; text: string }> = [];
  parts.forEach((part, node) => {
    let seq = 0;
    for (const line of part.split('\n')) {
      if (line === '') continue;
      const tab = line.indexOf('\t');
      const key = Number(line.slice(0, tab));
      if (tab < 0 || !Number.isSafeInteger(key)) throw new Error(`trace part of node ${node}, row ${seq + 1}: expected "<key ps>\\t<row>", got ${JSON.stringify(line.slice(0, 60))}`);
      rows.push({ key, node, seq: seq++, text: line.slice(tab + 1) });
    }
  });
  rows.sort((a, b) => a.key - b.key || a.node - b.node || a.seq - b.seq);
  return `${header.join(',')}\n${rows.map((r) => `${r.text}\n`).join('')}`;
}
