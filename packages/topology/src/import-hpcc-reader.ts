/**
 * The config.txt values as the import reads them (`import-hpcc-pod.ts` and the mappings beside
 * it): each with the simulator's default when unset, where it came from for a comment, and the
 * three outcomes of a key — a refusal, an approximation (warning and comment), or a note.
 */
import { ImportError, type ConfigEntry, type HpccConfig, type ImportWarning } from './import-hpcc.js';
import type { NotePath } from './import-hpcc-yaml.js';

export interface Note {
  path: NotePath;
  text: string;
}

export class ConfigReader {
  readonly notes: Note[] = [];

  constructor(
    readonly config: HpccConfig,
    readonly warnings: ImportWarning[],
  ) {}

  entry(key: string): ConfigEntry | undefined {
    return this.config.entries.get(key);
  }

  /** The value read, or `fallback`: third.cc's initial value of the global the key sets. */
  get<T>(key: string, fallback: T): T {
    return (this.entry(key)?.value as T | undefined) ?? fallback;
  }

  /** `KEY VALUE, FILE:LINE`, or that the key is unset, for comments and messages. */
  where(key: string): string {
    const e = this.entry(key);
    return e === undefined ? `${key} unset, third.cc's default` : `${key} ${e.text}, ${this.config.file}:${e.line}`;
  }

  refuse(key: string, expected: string): never {
    const e = this.entry(key);
    throw new ImportError(this.config.file, e?.line ?? 0, key, e?.text ?? '(unset)', expected);
  }

  approx(key: string, path: NotePath | null, message: string): void {
    this.warnings.push({ file: this.config.file, line: this.entry(key)?.line ?? 0, message: `${key}: ${message}` });
    if (path !== null) this.notes.push({ path, text: `APPROXIMATION (${this.where(key)}): ${message}` });
  }

  note(path: NotePath, text: string): void {
    this.notes.push({ path, text });
  }
}
