/**
 * Metering for a WebAssembly module: a counter that every loop iteration and every function
 * entry decrements, and a trap (`unreachable`) when it runs out. QuickJS polls its own interrupt
 * handler only in the interpreter's loop and the regex engine; its built-ins written in C (a
 * `sort` without a comparator, `JSON.parse`, typed-array methods) run as long as their input
 * makes them. Counted here, in the machine code QuickJS was compiled to, nothing escapes the
 * count, and the count is the same on every run of the same program with the same inputs.
 *
 * `meter(bytes)` rewrites the code section: after each `loop` and at the start of each function
 * body it inserts
 *
 *     global.get $fuel; i32.const 1; i32.sub; global.set $fuel;
 *     global.get $fuel; i32.const 0; i32.lt_s; if; unreachable; end
 *
 * on a mutable i32 global it adds and exports as `FUEL_EXPORT`. Everything else is copied byte
 * for byte, so indices of functions, globals and types are unchanged. The decoder knows the
 * instructions of WebAssembly 1.0 with sign extension, saturating truncation, bulk memory and
 * reference types (what Emscripten emits by default); anything else is refused.
 */

export const FUEL_EXPORT = 'rocelab_fuel';

const SECTION = { import: 2, global: 6, export: 7, code: 10 } as const;

class Reader {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }
  byte(): number {
    if (this.pos >= this.bytes.length) throw new Error('wasm-meter: unexpected end of module');
    return this.bytes[this.pos++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error('wasm-meter: LEB128 too long');
    }
  }
  /** Skips a signed LEB128 (s32, s33 or s64). */
  sleb(): void {
    for (let n = 0; ; n++) {
      if ((this.byte() & 0x80) === 0) return;
      if (n > 10) throw new Error('wasm-meter: LEB128 too long');
    }
  }
  skip(n: number): void {
    this.pos += n;
  }
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function concat(parts: ReadonlyArray<Uint8Array | number[]>): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The instruction sequence that spends one unit of fuel. */
function check(fuel: number): number[] {
  const g = leb(fuel);
  return [0x23, ...g, 0x41, 0x01, 0x6b, 0x24, ...g, 0x23, ...g, 0x41, 0x00, 0x48, 0x04, 0x40, 0x00, 0x0b];
}

function blockType(r: Reader): void {
  const b = r.bytes[r.pos]!;
  if (b === 0x40 || b === 0x7f || b === 0x7e || b === 0x7d || b === 0x7c || b === 0x7b || b === 0x70 || b === 0x6f) r.skip(1);
  else r.sleb();
}

/** One function body (locals and instructions), metered. */
function meterBody(body: Uint8Array, fuel: number): Uint8Array {
  const r = new Reader(body);
  const groups = r.u32();
  for (let i = 0; i < groups; i++) {
    r.u32();
    r.skip(1);
  }
  const spend = check(fuel);
  const out: Array<Uint8Array | number[]> = [body.subarray(0, r.pos), spend];
  let copied = r.pos;
  while (r.pos < body.length) {
    const op = r.byte();
    switch (op) {
      case 0x03: // loop
        blockType(r);
        out.push(body.subarray(copied, r.pos), spend);
        copied = r.pos;
        break;
      case 0x02:
      case 0x04:
        blockType(r);
        break;
      case 0x0c:
      case 0x0d:
      case 0x10:
      case 0x12:
      case 0x20:
      case 0x21:
      case 0x22:
      case 0x23:
      case 0x24:
      case 0x25:
      case 0x26:
      case 0xd2:
        r.u32();
        break;
      case 0x0e: {
        const n = r.u32();
        for (let i = 0; i <= n; i++) r.u32();
        break;
      }
      case 0x11:
      case 0x13:
        r.u32();
        r.u32();
        break;
      case 0x1c: {
        const n = r.u32();
        r.skip(n);
        break;
      }
      case 0x3f:
      case 0x40:
      case 0xd0:
        r.skip(1);
        break;
      case 0x41:
      case 0x42:
        r.sleb();
        break;
      case 0x43:
        r.skip(4);
        break;
      case 0x44:
        r.skip(8);
        break;
      case 0xfc: {
        const sub = r.u32();
        if (sub <= 7) break;
        if (sub === 8) {
          r.u32();
          r.skip(1);
        } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) r.u32();
        else if (sub === 10) r.skip(2);
        else if (sub === 11) r.skip(1);
        else if (sub === 12 || sub === 14) {
          r.u32();
          r.u32();
        } else throw new Error(`wasm-meter: unknown instruction 0xfc ${sub}`);
        break;
      }
      default:
        if (op >= 0x28 && op <= 0x3e) {
          r.u32();
          r.u32();
        } else if (!(op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || (op >= 0x45 && op <= 0xc4) || op === 0xd1)) {
          throw new Error(`wasm-meter: unknown instruction 0x${op.toString(16)} at byte ${r.pos - 1} of a function body`);
        }
    }
  }
  out.push(body.subarray(copied));
  return concat(out);
}

/** The module with a fuel counter in every loop and function entry (see above). */
export function meter(module: Uint8Array): Uint8Array {
  if (!(module[0] === 0 && module[1] === 0x61 && module[2] === 0x73 && module[3] === 0x6d)) throw new Error('wasm-meter: not a WebAssembly module');
  const sections: Array<{ id: number; content: Uint8Array }> = [];
  const r = new Reader(module, 8);
  while (r.pos < module.length) {
    const id = r.byte();
    const size = r.u32();
    sections.push({ id, content: module.subarray(r.pos, r.pos + size) });
    r.skip(size);
  }
  let importedGlobals = 0;
  const imports = sections.find((s) => s.id === SECTION.import);
  if (imports !== undefined) {
    const ir = new Reader(imports.content);
    const n = ir.u32();
    for (let i = 0; i < n; i++) {
      ir.skip(ir.u32());
      ir.skip(ir.u32());
      const kind = ir.byte();
      if (kind === 0) ir.u32();
      else if (kind === 1) {
        ir.skip(1);
        const flags = ir.byte();
        ir.u32();
        if (flags & 1) ir.u32();
      } else if (kind === 2) {
        const flags = ir.byte();
        ir.u32();
        if (flags & 1) ir.u32();
      } else if (kind === 3) {
        ir.skip(2);
        importedGlobals++;
      } else throw new Error(`wasm-meter: unknown import kind ${kind}`);
    }
  }
  let global = sections.find((s) => s.id === SECTION.global);
  if (global === undefined) {
    global = { id: SECTION.global, content: new Uint8Array([0]) };
    const after = sections.findIndex((s) => s.id > SECTION.global && s.id !== 0);
    sections.splice(after < 0 ? sections.length : after, 0, global);
  }
  const gr = new Reader(global.content);
  const defined = gr.u32();
  const fuel = importedGlobals + defined;
  // A mutable i32, full at first (the start function and constructors run on it); the host fills it before each entry.
  global.content = concat([leb(defined + 1), global.content.subarray(gr.pos), [0x7f, 0x01, 0x41, 0xff, 0xff, 0xff, 0xff, 0x07, 0x0b]]);
  const exportSection = sections.find((s) => s.id === SECTION.export);
  if (exportSection === undefined) throw new Error('wasm-meter: the module exports nothing');
  const er = new Reader(exportSection.content);
  const exported = er.u32();
  const name = new TextEncoder().encode(FUEL_EXPORT);
  exportSection.content = concat([leb(exported + 1), exportSection.content.subarray(er.pos), leb(name.length), name, [0x03], leb(fuel)]);
  const code = sections.find((s) => s.id === SECTION.code);
  if (code === undefined) throw new Error('wasm-meter: the module has no code');
  const cr = new Reader(code.content);
  const functions = cr.u32();
  const bodies: Array<Uint8Array | number[]> = [leb(functions)];
  for (let i = 0; i < functions; i++) {
    const size = cr.u32();
    const body = meterBody(code.content.subarray(cr.pos, cr.pos + size), fuel);
    cr.skip(size);
    bodies.push(leb(body.length), body);
  }
  code.content = concat(bodies);
  return concat([module.subarray(0, 8), ...sections.flatMap((s) => [[s.id, ...leb(s.content.length)], s.content])]);
}
