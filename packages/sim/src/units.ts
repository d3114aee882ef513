/**
 * The unit parsers mechanism packages use to read their topology sub-configs. They are
 * injected by the topology loader (its `UNITS`), so every file accepts the same spellings
 * (`1.5us`, `40G`, `1MiB`, `1/256`) and each package needs no parser of its own.
 */
export interface UnitParsers {
  /** `1us`, `500ns`, `2ms`, `1.5us` → integer picoseconds. */
  duration(text: string): number;
  /** `40G`, `100M`, `2.5G` → bit/s. */
  rate(text: string | number): number;
  /** an integer, `4MB`, `1MiB` → bytes. */
  bytes(value: string | number): number;
  /** `0.01`, `1/256` → 0..1. */
  probability(value: string | number): number;
}
