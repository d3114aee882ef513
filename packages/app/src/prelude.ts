/**
 * The part of the app's runtime that runs inside its machine (machine.ts), as source text:
 * the determinism guards, the `rdma` API and the bookkeeping of work requests, receives and
 * sleepers. It talks to the host through one function (`host`, never on `globalThis`) and one
 * mailbox of doubles (`box`, in the machine's memory): the host writes events there, the prelude
 * writes a call's numbers there. Strings go as arguments. Nothing the host owns is ever inside.
 *
 * The mailbox, as doubles:
 * - an entry from the host (`entry()`): [0] what (ENTRY_*), [1] virtual now, [2] events in this
 *   chunk, [3] 1 if more wait (`take`), then EVENT_SLOTS per event from [4];
 * - a call to the host (`host(...strings)`): [0] the call (CALL_*), its numbers from [1]; the
 *   answer (a number) in [1]. The function returns a string when the call was refused.
 *
 * A work request returns a thenable rather than a promise: a failure nobody awaits is then not
 * an unhandled rejection, and a failure of an unsignaled one (which nobody can await) stops the
 * app instead.
 */

/** Doubles in the mailbox. */
export const BOX_SLOTS = 512;
export const EVENT_SLOTS = 8;
export const FIRST_EVENT = 4;
export const EVENTS_PER_CHUNK = Math.floor((BOX_SLOTS - FIRST_EVENT) / EVENT_SLOTS);

export const ENTRY = { region: 1, start: 2, dispatch: 3, regions: 4 } as const;
export const CALL = { post: 1, recv: 2, wake: 3, random: 4, log: 5, report: 6, metric: 7, inc: 8, observe: 9, finished: 10, failed: 11, take: 12 } as const;
/** Event kinds in the mailbox. */
export const EVENT = { completed: 1, completedAtomic: 2, failed: 3, received: 4 } as const;
export const OPCODES = ['write', 'send', 'read', 'fetchAdd', 'compareSwap'] as const;
export const RECEIVE_OPCODES = ['send', 'writeImmediate'] as const;

/**
 * Evaluated before the app's own code: what an app may not use, replaced by functions that say
 * what to use instead. The context was made without `Date`; QuickJS has no `Atomics`, `WeakRef`,
 * `FinalizationRegistry`, `performance` or `Intl`; what remains is pure language.
 */
const GUARDS = String.raw`
  const refuse = (what) => function () { throw new Error(label + ': ' + what); };
  Math.random = refuse('Math.random is not deterministic: use rdma.random()');
  const clock = refuse('Date reads the wall clock and the machine\'s time zone: use rdma.now() (virtual picoseconds)');
  clock.now = clock;
  clock.parse = clock;
  clock.UTC = clock;
  globalThis.Date = clock;
  const waits = refuse('Atomics wait on memory shared between threads; an app has one: await rdma.sleep() or a work request');
  globalThis.Atomics = Object.freeze({ wait: waits, waitAsync: waits, notify: waits, load: waits, store: waits, add: waits, sub: waits, and: waits, or: waits, xor: waits, exchange: waits, compareExchange: waits, isLockFree: waits });
  globalThis.SharedArrayBuffer = refuse('SharedArrayBuffer is memory shared between threads; an app has one: use ArrayBuffer, or a region for what peers reach');
  const locale = refuse('Intl formats with the machine\'s locale, time zone and clock: format numbers yourself, and take the time from rdma.now()');
  globalThis.Intl = Object.freeze({ DateTimeFormat: locale, NumberFormat: locale, Collator: locale, PluralRules: locale, RelativeTimeFormat: locale, ListFormat: locale, DisplayNames: locale, Segmenter: locale, Locale: locale, getCanonicalLocales: locale, supportedValuesOf: locale });
  const wall = refuse('performance reads the wall clock: use rdma.now() (virtual picoseconds)');
  globalThis.performance = Object.freeze({ now: wall, mark: wall, measure: wall });
  const timer = refuse('timers run on the wall clock: await rdma.sleep(ps) waits in virtual time');
  globalThis.setTimeout = timer;
  globalThis.setInterval = timer;
  globalThis.setImmediate = timer;
  globalThis.WeakRef = refuse('WeakRef observes garbage collection, which differs from run to run: keep a Map');
  globalThis.FinalizationRegistry = refuse('FinalizationRegistry observes garbage collection, which differs from run to run: release explicitly');
  for (const name of ['transfer', 'transferToFixedLength']) {
    const original = ArrayBuffer.prototype[name];
    Object.defineProperty(ArrayBuffer.prototype, name, { configurable: true, writable: true, value: function (...args) {
      if (isRegionBuffer(this)) throw new TypeError(label + ': a region stays where it was registered: ' + name + '() would take it from the NIC');
      return original.apply(this, args);
    } });
  }
`;

export const PRELUDE = String.raw`
(function (host, boxBuffer, setupJson) {
  'use strict';
  const setup = JSON.parse(setupJson);
  const label = setup.label;
  const box = new Float64Array(boxBuffer);
  const regionBuffers = [];
  const isRegionBuffer = (b) => regionBuffers.includes(b);
  ${GUARDS}

  let stopped = null;
  let now = 0;
  const OPCODES = ${JSON.stringify(OPCODES)};
  const OPCODE_INDEX = { write: 0, send: 1, read: 2, fetchAdd: 3, compareSwap: 4 };
  function call(code) {
    box[0] = code;
    return host();
  }
  function refused(answer) {
    return typeof answer === 'string' ? answer : null;
  }
  function stop(message) {
    if (stopped !== null) return;
    stopped = message;
    box[0] = ${CALL.failed};
    host(message);
  }
  const print = (...parts) => { box[0] = ${CALL.log}; host(parts.map(String).join(' ')); };
  globalThis.console = { log: print, info: print, warn: print, error: print, debug: print };

  /**
   * What the app threw, with the app's own functions from its stack (positions are the bundle's,
   * not the file's, so they are left out; a run of one function is counted, not repeated). A
   * limit the app hit is named with the setting that raises it.
   */
  function thrown(err) {
    if (err instanceof InternalError && err.message === 'out of memory') return 'ran out of its ' + setup.memoryText + ' of memory; stopped (app.memory raises the limit)';
    if (err instanceof InternalError && err.message === 'stack overflow') return 'recursed deeper than its stack allows (about 350 calls); stopped';
    if (!(err instanceof Error)) return 'threw: ' + String(err);
    const frames = [];
    for (const line of String(err.stack ?? '').split('\n')) {
      const l = line.trim();
      if (!(l.startsWith('at ') && l.includes('(' + setup.module + ':'))) continue;
      const name = l.replace(/ \(.*\)$/, '');
      const last = frames[frames.length - 1];
      if (last !== undefined && last.name === name) last.count++;
      else frames.push({ name, count: 1 });
    }
    const text = frames.slice(0, 8).map((f) => f.count === 1 ? f.name : f.name + ' ×' + f.count);
    return 'threw: ' + err.name + ': ' + err.message + (text.length === 0 ? '' : ' (' + text.join(', ') + ')');
  }

  /**
   * A work request's or receive's outcome, settled once: the thenable the app awaits, which makes a
   * real promise only when someone asks for one. What it was (\`describe\`) is put in words only
   * for an error. A class, not closures: an app event makes one, and each closure is an allocation.
   */
  class Outcome {
    constructor(what, peer, size, remote, signaled) {
      this.what = what;
      this.peer = peer;
      this.size = size;
      this.remote = remote;
      this.signaled = signaled;
      this.settled = false;
      this.ok = false;
      this.value = undefined;
      this.promise = null;
      this.resolve = null;
      this.reject = null;
    }
    then(onFulfilled, onRejected) {
      if (this.promise === null) {
        this.promise = new Promise((a, b) => { this.resolve = a; this.reject = b; });
        if (this.settled) this.ok ? this.resolve(this.value) : this.reject(this.value);
      }
      return this.promise.then(onFulfilled, onRejected);
    }
  }

  function describeOutcome(o) {
    return o.what === 'receive' ? 'receive from ' + o.peer : o.what + ' of ' + o.size + ' bytes ' + (o.what === 'read' ? 'from ' : 'to ') + o.peer + (o.remote !== null && typeof o.remote === 'object' && typeof o.remote.address === 'bigint' ? describeRemote(o.remote) : '');
  }

  function settle(o, ok, value) {
    if (!ok) value = new Error(label + ': ' + describeOutcome(o) + ' failed: ' + value);
    o.settled = true;
    o.ok = ok;
    o.value = value;
    if (o.promise !== null) ok ? o.resolve(value) : o.reject(value);
    else if (!ok && !o.signaled) stop(value.message + ' (an unsignaled request: nothing could wait for it)');
  }

  const works = new Map();
  const receives = new Map();
  const sleepers = [];
  let sleepSeq = 0;

  function armWake() {
    box[1] = sleepers.length === 0 ? -1 : sleepers[0].atPs;
    call(${CALL.wake});
  }

  function hex(n) {
    return '0x' + n.toString(16);
  }

  function describeRemote(remote) {
    return remote === null ? '' : ' at ' + hex(remote.address) + ' (rkey ' + hex(remote.rkey) + ')';
  }

  function peerHint(peer) {
    if (peer === setup.node) return 'an app connects to other hosts, not to its own';
    return peer + ' runs no app here (hosts with one: ' + Object.keys(setup.regions).join(', ') + ')';
  }

  /** Where a buffer lies, into box[at…at+2]: its region, offset and length (IB's lkey check, made before the host makes it again). */
  function span(local, o, exactLength, at) {
    if (local !== null && typeof local === 'object' && ArrayBuffer.isView(local)) {
      const region = regionBuffers.indexOf(local.buffer);
      if (region >= 0) {
        if (exactLength !== null && local.byteLength !== exactLength) throw new Error(label + ': ' + describeOutcome(o) + ': an atomic\'s local buffer holds exactly 8 bytes, got ' + local.byteLength);
        box[at] = region;
        box[at + 1] = local.byteOffset;
        box[at + 2] = local.byteLength;
        return;
      }
    }
    throw new Error(label + ': ' + describeOutcome(o) + ': the local buffer must be part of a registered region (rdma.region(name).slice(offset, length))');
  }

  function words(value, at) {
    const v = BigInt.asUintN(64, value);
    box[at] = Number(v >> 32n);
    box[at + 1] = Number(v & 0xffffffffn);
  }

  function qpFor(peer, peerIndex) {
    const post = (opcode, local, remote, options, operand, swap) => {
      if (stopped !== null) throw new Error(stopped);
      const signaled = options?.signaled !== false;
      const immediate = options?.immediate;
      const atomic = opcode === 'fetchAdd' || opcode === 'compareSwap';
      const size = atomic ? 8 : local === null || local === undefined ? 0 : local.byteLength ?? 0;
      const o = new Outcome(opcode, peer, size, remote, signaled);
      if (local !== null || !atomic) span(local, o, atomic ? 8 : null, 3);
      else box[3] = -1;
      if (opcode !== 'send' && (remote === null || typeof remote !== 'object' || typeof remote.address !== 'bigint' || typeof remote.rkey !== 'number')) {
        throw new Error(label + ': ' + describeOutcome(o) + ': the remote side must be {address: bigint, rkey} (rdma.remote(host, name).at(offset))');
      }
      if (immediate !== undefined && opcode !== 'write' && opcode !== 'send') throw new Error(label + ': ' + describeOutcome(o) + ': immediate data goes with a WRITE or SEND only');
      box[1] = peerIndex;
      box[2] = OPCODE_INDEX[opcode];
      box[6] = size;
      box[7] = immediate === undefined ? -1 : Number(immediate);
      if (remote !== null && opcode !== 'send') {
        words(remote.address, 8);
        box[10] = remote.rkey;
      }
      if (atomic) {
        words(operand, 11);
        words(swap, 13);
      }
      const answer = refused(call(${CALL.post}));
      if (answer !== null) throw new Error(label + ': ' + describeOutcome(o) + ': ' + answer);
      works.set(box[1], o);
      return signaled ? o : undefined;
    };
    return Object.freeze({
      peer,
      write: (local, remote, options) => post('write', local, remote, options, 0n, 0n),
      read: (local, remote, options) => post('read', local, remote, options, 0n, 0n),
      send: (local, options) => post('send', local, null, options, 0n, 0n),
      fetchAdd: (local, remote, add) => post('fetchAdd', local, remote, undefined, BigInt(add), 0n),
      compareSwap: (local, remote, compare, swap) => post('compareSwap', local, remote, undefined, BigInt(compare), BigInt(swap)),
      recv(buffer) {
        if (stopped !== null) throw new Error(stopped);
        const o = new Outcome('receive', peer, 0, null, true);
        span(buffer, o, null, 2);
        box[1] = peerIndex;
        const answer = refused(call(${CALL.recv}));
        if (answer !== null) throw new Error(label + ': receive from ' + peer + ': ' + answer);
        o.buffer = buffer;
        let queue = receives.get(peerIndex);
        if (queue === undefined) receives.set(peerIndex, (queue = []));
        queue.push(o);
        return o;
      },
    });
  }

  function listRegions(host) {
    const names = (setup.regions[host] ?? []).map((e) => e.name);
    return names.length === 0 ? 'no regions (its app exports no regions)' : 'only ' + names.join(', ');
  }

  const locals = new Map();
  function region(name) {
    const known = locals.get(name);
    if (known !== undefined) return known;
    const index = (setup.regions[setup.node] ?? []).findIndex((e) => e.name === name);
    if (index < 0 || regionBuffers[index] === undefined) throw new Error(label + ': region(' + JSON.stringify(name) + '): ' + setup.node + ' registered ' + listRegions(setup.node));
    const entry = setup.regions[setup.node][index];
    const bytes = new Uint8Array(regionBuffers[index]);
    const address = BigInt(entry.address);
    const r = Object.freeze({
      name,
      bytes,
      address,
      rkey: entry.rkey,
      slice(offset, length) {
        if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0 && offset + length <= bytes.length)) {
          throw new RangeError(label + ': region ' + name + '.slice(' + offset + ', ' + length + ') is outside its ' + bytes.length + ' bytes');
        }
        return bytes.subarray(offset, offset + length);
      },
      at: (offset) => ({ address: address + BigInt(offset), rkey: entry.rkey }),
    });
    locals.set(name, r);
    return r;
  }

  function remote(host, name) {
    const entry = (setup.regions[host] ?? []).find((e) => e.name === name);
    if (entry === undefined) {
      const hosts = Object.keys(setup.regions);
      throw new Error(label + ': remote(' + JSON.stringify(host) + ', ' + JSON.stringify(name) + '): ' + (hosts.includes(host) ? host + ' registered ' + listRegions(host) : host + ' runs no app (hosts with one: ' + hosts.join(', ') + ')'));
    }
    const address = BigInt(entry.address);
    return Object.freeze({ host, name, address, rkey: entry.rkey, length: entry.length, at: (offset) => ({ address: address + BigInt(offset), rkey: entry.rkey }) });
  }

  const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;
  function metric(kind, name, help, bounds) {
    if (!METRIC_NAME.test(name)) throw new Error(label + ': metric name ' + JSON.stringify(name) + ': lowercase letters, digits and _, not starting with a digit');
    box[1] = kind;
    const answer = refused(host(name, help, bounds === null ? '' : JSON.stringify(Array.from(bounds, Number))));
    if (answer !== null) throw new Error(label + ': ' + answer);
    return box[1];
  }

  const qps = new Map();
  const rdma = Object.freeze({
    node: setup.node,
    hosts: Object.freeze([...setup.hosts]),
    args: setup.args,
    now: () => now,
    us: (n) => Math.round(n * 1e6),
    ns: (n) => Math.round(n * 1e3),
    sleep(ps) {
      if (!(Number.isFinite(ps) && ps >= 0)) throw new RangeError(label + ': sleep takes picoseconds ≥ 0, got ' + ps);
      return new Promise((resolve) => {
        const s = { atPs: now + Math.round(ps), seq: sleepSeq++, resolve };
        let i = sleepers.length;
        while (i > 0 && (sleepers[i - 1].atPs > s.atPs)) i--;
        sleepers.splice(i, 0, s);
        armWake();
      });
    },
    random: () => { call(${CALL.random}); return box[1]; },
    log: (message, fields) => { box[0] = ${CALL.log}; host(fields == null ? String(message) : String(message) + ' ' + JSON.stringify(fields)); },
    report(key, value) {
      key = String(key);
      if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') throw new Error(label + ': report(' + JSON.stringify(key) + '): a number, string or boolean, got ' + typeof value);
      box[0] = ${CALL.report};
      box[1] = typeof value === 'number' ? 0 : typeof value === 'string' ? 1 : 2;
      box[2] = typeof value === 'number' ? value : value === true ? 1 : 0;
      host(key, typeof value === 'string' ? value : '');
    },
    region: (name) => region(String(name)),
    remote: (node, name) => remote(String(node), String(name)),
    connect(peer) {
      peer = String(peer);
      let qp = qps.get(peer);
      if (qp === undefined) {
        const index = setup.hosts.indexOf(peer);
        if (!setup.peers.includes(peer)) throw new Error(label + ': connect(' + JSON.stringify(peer) + '): ' + peerHint(peer));
        qps.set(peer, (qp = qpFor(peer, index)));
      }
      return qp;
    },
    counter(name, help) {
      box[0] = ${CALL.metric};
      const index = metric(0, String(name), String(help), null);
      return Object.freeze({ inc: (by = 1) => { box[1] = index; box[2] = Number(by); call(${CALL.inc}); } });
    },
    histogram(name, help, bounds) {
      box[0] = ${CALL.metric};
      const index = metric(1, String(name), String(help), bounds ?? null);
      return Object.freeze({ observe: (v) => { box[1] = index; box[2] = Number(v); call(${CALL.observe}); } });
    },
  });

  function take(first) {
    let count = box[2];
    let more = box[3];
    for (let chunk = 0; ; chunk++) {
      for (let k = 0; k < count; k++) {
        const at = ${FIRST_EVENT} + k * ${EVENT_SLOTS};
        const kind = box[at];
        if (kind === ${EVENT.received}) {
          const queue = receives.get(box[at + 1]);
          const posted = queue === undefined ? undefined : queue.shift();
          if (posted !== undefined) settle(posted, true, { opcode: ${JSON.stringify(RECEIVE_OPCODES)}[box[at + 2]], bytes: box[at + 3], immediate: box[at + 4] < 0 ? null : box[at + 4], buffer: posted.buffer });
          continue;
        }
        const o = works.get(box[at + 1]);
        works.delete(box[at + 1]);
        if (o === undefined) continue;
        if (kind === ${EVENT.failed}) {
          settle(o, false, setup.statusText[box[at + 2]]);
          continue;
        }
        const c = { opcode: OPCODES[box[at + 2]], bytes: box[at + 3], postedPs: box[at + 4], completedPs: box[at + 5] };
        if (kind === ${EVENT.completedAtomic}) c.original = (BigInt(box[at + 6]) << 32n) | BigInt(box[at + 7]);
        settle(o, true, c);
      }
      if (more === 0) return;
      call(${CALL.take});
      count = box[2];
      more = box[3];
    }
  }

  function start() {
    const main = typeof __app === 'object' && __app !== null ? __app.default : undefined;
    if (typeof main !== 'function') {
      stop(label + ': its default export must be the app, an (async) function of rdma; got ' + typeof main);
      return;
    }
    let result;
    try {
      result = main(rdma);
    } catch (err) {
      stop(label + ': ' + thrown(err));
      return;
    }
    Promise.resolve(result).then(
      () => { if (stopped === null) call(${CALL.finished}); },
      (err) => stop(err instanceof Error && err.message.startsWith(label) ? err.message : label + ': ' + thrown(err)),
    );
  }

  /** Each host's regions, from the app's regions export: [[name, bytes, access…]…] as JSON. */
  function declared(node, args) {
    const exports = typeof __app === 'object' && __app !== null ? __app : {};
    if (typeof exports.default !== 'function') return 'its default export must be the app, an (async) function of rdma; got ' + typeof exports.default;
    if (exports.regions === undefined) return '[]';
    if (typeof exports.regions !== 'function') return 'its export "regions" must be a function (node, hosts, args) → {name: {bytes, access}}';
    let d;
    try {
      d = exports.regions(Object.freeze({ node, hosts: Object.freeze([...setup.hosts]), args }));
    } catch (err) {
      return 'regions() ' + thrown(err);
    }
    const where = 'regions()';
    if (typeof d !== 'object' || d === null) return where + ' must return {name: {bytes, access}}, got ' + String(d);
    if (typeof d.then === 'function') return where + ' must return the regions themselves, not a promise: it runs before the pod does';
    const out = [];
    for (const [name, spec] of Object.entries(d)) {
      if (spec === undefined) continue;
      if (typeof spec !== 'object' || spec === null || !(Number.isSafeInteger(spec.bytes) && spec.bytes >= 0 && spec.bytes <= 1 << 30)) {
        return where + ': region "' + name + '" needs bytes, an integer 0..2^30, got ' + JSON.stringify(spec?.bytes ?? spec);
      }
      const access = spec.access ?? [];
      if (!Array.isArray(access)) return where + ': region "' + name + '": access must be a list';
      for (const a of access) if (a !== 'remoteRead' && a !== 'remoteWrite' && a !== 'remoteAtomic') return where + ': region "' + name + '": access must list remoteRead, remoteWrite or remoteAtomic, got ' + JSON.stringify(a);
      out.push([name, spec.bytes, ...access]);
    }
    return JSON.stringify(out);
  }

  /** The host's way in: box[0] says what, box[1] the virtual time; the answer (for regions) is returned. */
  return function entry(arg, text) {
    now = box[1];
    switch (box[0]) {
      case ${ENTRY.region}:
        regionBuffers.push(arg);
        return undefined;
      case ${ENTRY.regions}: {
        const input = JSON.parse(text);
        return declared(input.node, input.args);
      }
      case ${ENTRY.start}:
        if (stopped === null) start();
        return undefined;
      default:
        if (stopped !== null) return undefined;
        take();
        while (sleepers.length > 0 && sleepers[0].atPs <= now) sleepers.shift().resolve();
        armWake();
        return undefined;
    }
  };
})
`;
