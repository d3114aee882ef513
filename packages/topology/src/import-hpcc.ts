/**
 * `rocelab import hpcc-ns3`, part one: the HPCC ns-3 simulator's `config.txt` read into a typed
 * model, with every value the simulator would read and the line it stands on (the topology, flow
 * and trace files it names: `import-hpcc-files.ts`). Part two (`import-hpcc-pod.ts`) turns the
 * model into a pod. Pure: the caller reads the files.
 *
 * The simulator reads every file as whitespace-separated tokens (`std::ifstream >>`, HPCC
 * `third.cc main`), so lines carry no meaning to it; here they do only for the messages. A key
 * rocelab cannot honour is refused by the pod builder; here only what does not parse is.
 */

/** A value of an HPCC input file that rocelab refuses: where it is, what it is, what was expected. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly key: string,
    readonly value: string,
    readonly expected: string,
  ) {
    super(`${file}${line > 0 ? `:${line}` : ''}: ${key}${value === '' ? '' : ` ${value}`}: expected ${expected}`);
    this.name = 'ImportError';
  }
}

/** Something the import left out or approximated; it still writes the pod. */
export interface ImportWarning {
  file: string;
  line: number;
  message: string;
}

export interface Token {
  text: string;
  line: number;
}

export function tokens(text: string): Token[] {
  const out: Token[] = [];
  text.split('\n').forEach((row, i) => {
    for (const t of row.trim().split(/\s+/)) if (t !== '') out.push({ text: t, line: i + 1 });
  });
  return out;
}

/** How each key of `third.cc main` reads its value (the order of the `else if` chain). */
type KeyShape = 'flag' | 'uint' | 'double' | 'string' | 'rate' | 'linkDown' | 'uintMap' | 'doubleMap';
export const HPCC_CONFIG_KEYS: Readonly<Record<string, KeyShape>> = {
  ENABLE_QCN: 'flag',
  USE_DYNAMIC_PFC_THRESHOLD: 'flag',
  CLAMP_TARGET_RATE: 'flag',
  PAUSE_TIME: 'double',
  DATA_RATE: 'string',
  LINK_DELAY: 'string',
  PACKET_PAYLOAD_SIZE: 'uint',
  L2_CHUNK_SIZE: 'uint',
  L2_ACK_INTERVAL: 'uint',
  L2_BACK_TO_ZERO: 'flag',
  TOPOLOGY_FILE: 'string',
  FLOW_FILE: 'string',
  TRACE_FILE: 'string',
  TRACE_OUTPUT_FILE: 'string',
  SIMULATOR_STOP_TIME: 'double',
  ALPHA_RESUME_INTERVAL: 'double',
  RP_TIMER: 'double',
  EWMA_GAIN: 'double',
  FAST_RECOVERY_TIMES: 'uint',
  RATE_AI: 'rate',
  RATE_HAI: 'rate',
  ERROR_RATE_PER_LINK: 'double',
  CC_MODE: 'uint',
  RATE_DECREASE_INTERVAL: 'double',
  MIN_RATE: 'rate',
  FCT_OUTPUT_FILE: 'string',
  HAS_WIN: 'uint',
  GLOBAL_T: 'uint',
  MI_THRESH: 'uint',
  VAR_WIN: 'flag',
  FAST_REACT: 'flag',
  U_TARGET: 'double',
  INT_MULTI: 'uint',
  RATE_BOUND: 'flag',
  ACK_HIGH_PRIO: 'uint',
  DCTCP_RATE_AI: 'rate',
  PFC_OUTPUT_FILE: 'string',
  LINK_DOWN: 'linkDown',
  ENABLE_TRACE: 'uint',
  KMAX_MAP: 'uintMap',
  KMIN_MAP: 'uintMap',
  PMAX_MAP: 'doubleMap',
  BUFFER_SIZE: 'uint',
  QLEN_MON_FILE: 'string',
  QLEN_MON_START: 'uint',
  QLEN_MON_END: 'uint',
  MULTI_RATE: 'flag',
  SAMPLE_FEEDBACK: 'flag',
  PINT_LOG_BASE: 'double',
  PINT_PROB: 'double',
};

/** One key as the file gives it: its line, its tokens as written, and the value read from them. */
export interface ConfigEntry<T = unknown> {
  line: number;
  /** The value as written (all its tokens), for messages and comments. */
  text: string;
  value: T;
}

export interface HpccConfig {
  file: string;
  /** The last occurrence of each key wins, as in the simulator (each assignment overwrites). */
  entries: ReadonlyMap<string, ConfigEntry>;
  warnings: ImportWarning[];
}

export const UINT = /^\d+$/;
export const DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * ns-3 `DataRate` strings (`data-rate.cc DoParse`): a number and bps, b/s, Bps, B/s with an
 * optional SI prefix (k/K, M, G); a bare number is bit/s. Exact for decimal inputs.
 */
export function parseNs3Rate(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([kKMG]?)(bps|b\/s|Bps|B\/s)?$/.exec(text);
  if (m === null) return null;
  const scale = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 }[m[2]!]!;
  const bytes = m[3] === 'Bps' || m[3] === 'B/s' ? 8 : 1;
  const v = Math.round(Number(m[1]) * scale * bytes);
  return Number.isSafeInteger(v) ? v : null;
}

const NS3_TIME_PS: Record<string, number> = { s: 1e12, ms: 1e9, us: 1e6, ns: 1e3, ps: 1 };

/**
 * ns-3 `Time` strings (`nstime.h` `Time(std::string)`): a number and s, ms, us, ns or ps; a bare
 * number is seconds. The simulator's time resolution is 1 ns, so a delay is whole nanoseconds.
 */
export function parseNs3Time(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(s|ms|us|ns|ps)?$/.exec(text);
  if (m === null) return null;
  const ns = Math.round((Number(m[1]) * NS3_TIME_PS[m[2] ?? 's']!) / 1e3);
  return Number.isSafeInteger(ns) ? ns * 1e3 : null;
}

/** `config.txt` → entries. A value that does not read as the simulator reads it is an ImportError. */
export function parseHpccConfig(text: string, file: string): HpccConfig {
  const ts = tokens(text);
  const entries = new Map<string, ConfigEntry>();
  const warnings: ImportWarning[] = [];
  let i = 0;
  const take = (key: Token, expected: string): Token => {
    const t = ts[i++];
    if (t === undefined) throw new ImportError(file, key.line, key.text, '', `${expected} after it (the file ends)`);
    return t;
  };
  const uint = (key: Token, what = 'a non-negative integer'): { t: Token; v: number } => {
    const t = take(key, what);
    if (!UINT.test(t.text) || !Number.isSafeInteger(Number(t.text))) throw new ImportError(file, t.line, key.text, t.text, what);
    return { t, v: Number(t.text) };
  };
  const double = (key: Token): { t: Token; v: number } => {
    const t = take(key, 'a number');
    if (!DOUBLE.test(t.text)) throw new ImportError(file, t.line, key.text, t.text, 'a number');
    return { t, v: Number(t.text) };
  };
  while (i < ts.length) {
    const key = ts[i++]!;
    const shape = HPCC_CONFIG_KEYS[key.text];
    if (shape === undefined) {
      // The simulator skips a token it does not know, and then reads the next token as a key:
      // a value on the same line is almost surely this key's, so it is skipped with it.
      const rest = ts.slice(i).filter((t) => t.line === key.line);
      i += rest.length;
      warnings.push({ file, line: key.line, message: `unknown key ${key.text}${rest.length ? ` (with ${rest.map((t) => t.text).join(' ')})` : ''}: HPCC third.cc ignores it, and so does the import` });
      continue;
    }
    const start = i;
    let value: unknown;
    switch (shape) {
      case 'flag':
        value = uint(key, '0 or 1').v !== 0;
        break;
      case 'uint':
        value = uint(key).v;
        break;
      case 'double':
        value = double(key).v;
        break;
      case 'string':
        value = take(key, 'a value').text;
        break;
      case 'rate': {
        const t = take(key, 'a rate');
        const bps = parseNs3Rate(t.text);
        if (bps === null) throw new ImportError(file, t.line, key.text, t.text, 'an ns-3 data rate like 50Mb/s, 100Gbps or 1000000 (bit/s)');
        value = bps;
        break;
      }
      case 'linkDown': {
        const at = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        const a = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        const b = uint(key, 'LINK_DOWN TIME_US NODE_A NODE_B (three non-negative integers)').v;
        value = { atUs: at, a, b };
        break;
      }
      case 'uintMap':
      case 'doubleMap': {
        const n = uint(key, 'a count of (rate, value) pairs').v;
        const map = new Map<number, number>();
        for (let k = 0; k < n; k++) {
          const rate = uint(key, `${n} pairs of a link rate in bit/s and a value`).v;
          map.set(rate, shape === 'uintMap' ? uint(key, 'a threshold in KB (units of 1000 B), a non-negative integer').v : double(key).v);
        }
        value = map;
        break;
      }
    }
    entries.set(key.text, { line: key.line, text: ts.slice(start, i).map((t) => t.text).join(' '), value });
  }
  return { file, entries, warnings };
}

/** The three input files config.txt names, as written, with their lines; a missing one is refused. */
export function hpccInputNames(config: HpccConfig): Record<'topology' | 'flow' | 'trace', { path: string; line: number }> {
  const named = (key: string) => {
    const e = config.entries.get(key);
    if (e === undefined) throw new ImportError(config.file, 0, key, '(unset)', `${key} naming a file (third.cc opens it with no default)`);
    return { path: e.value as string, line: e.line };
  };
  return { topology: named('TOPOLOGY_FILE'), flow: named('FLOW_FILE'), trace: named('TRACE_FILE') };
}
