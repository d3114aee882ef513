/**
 * The part of the API that runs inside an app's context (sandbox.ts), as source text. It has to:
 * promises an app awaits must be made by the context's own `Promise`, or their reactions would
 * run on Node's microtask queue instead of the context's, which is drained synchronously when
 * each dispatch returns. Everything here talks to the NIC through `host` (SandboxHost).
 *
 * A work request returns a thenable rather than a promise: a failure nobody awaits is then not
 * an unhandled rejection of the process, and a failure of an unsignaled one (which nobody can
 * await) stops the app instead.
 */
export const PRELUDE = String.raw`
(function (host, ticks) {
  'use strict';
  const label = host.label;
  ticks.onStop((message) => host.failed(message));
  const stop = (message) => ticks.stop(message);
  const print = (...parts) => host.log(parts.map(String).join(' '), null);
  globalThis.console = { log: print, info: print, warn: print, error: print, debug: print };

  /**
   * What the app threw, with the app's own functions from its stack: the frames of the engine
   * below them differ between one process and many, and positions are the bundle's, not the file's.
   */
  function thrown(err) {
    if (!(err instanceof Error)) return String(err);
    const frames = String(err.stack ?? '').split('\n').slice(1)
      .map((line) => line.trim())
      .filter((line) => line.startsWith('at ') && line.includes(host.module + ':'))
      .map((line) => line.replace(/ \(.*\)$/, '').replace(/ \S+:\d+:\d+$/, ''));
    return err.name + ': ' + err.message + (frames.length === 0 ? '' : ' (' + frames.join(', ') + ')');
  }

  /** A settle-once outcome that makes a real promise only when someone asks for one. */
  function outcome(describe, signaled) {
    let settled = null;
    let promise = null;
    let resolve = null;
    let reject = null;
    const o = {
      signaled,
      thenable: {
        then(onFulfilled, onRejected) {
          if (promise === null) {
            promise = new Promise((a, b) => { resolve = a; reject = b; });
            if (settled !== null) settled.ok ? resolve(settled.value) : reject(settled.value);
          }
          return promise.then(onFulfilled, onRejected);
        },
      },
      settle(ok, value) {
        if (!ok) value = new Error(label + ': ' + describe + ' failed: ' + value);
        settled = { ok, value };
        if (promise !== null) ok ? resolve(value) : reject(value);
        else if (!ok && !signaled) stop(value.message + ' (an unsignaled request: nothing could wait for it)');
      },
    };
    return o;
  }

  const works = new Map();
  const receives = new Map();
  const sleepers = [];
  let sleepSeq = 0;

  function armWake() {
    host.wakeAt(sleepers.length === 0 ? -1 : sleepers[0].atPs);
  }

  function describeRemote(remote) {
    return remote === null ? '' : ' at 0x' + remote.address.toString(16) + ' (rkey 0x' + remote.rkey.toString(16) + ')';
  }

  function qpFor(peer) {
    const post = (opcode, local, remote, size, options, operand, swap) => {
      if (ticks.stopped !== null) throw new Error(ticks.stopped);
      const signaled = options?.signaled !== false;
      const immediate = options?.immediate;
      const describe = opcode + ' of ' + size + ' bytes ' + (opcode === 'read' ? 'from ' : 'to ') + peer + describeRemote(remote);
      const id = host.post(peer, opcode, local, remote, size, immediate === undefined ? -1 : immediate, operand, swap, signaled, describe);
      const o = outcome(describe, signaled);
      works.set(id, o);
      return signaled ? o.thenable : undefined;
    };
    const sized = (local) => (local === null ? 0 : local.length);
    return Object.freeze({
      peer,
      write: (local, remote, options) => post('write', local, remote, sized(local), options, 0n, 0n),
      read: (local, remote, options) => post('read', local, remote, sized(local), options, 0n, 0n),
      send: (local, options) => post('send', local, null, sized(local), options, 0n, 0n),
      fetchAdd: (local, remote, add) => post('fetchAdd', local, remote, 8, undefined, BigInt(add), 0n),
      compareSwap: (local, remote, compare, swap) => post('compareSwap', local, remote, 8, undefined, BigInt(compare), BigInt(swap)),
      recv(buffer) {
        if (ticks.stopped !== null) throw new Error(ticks.stopped);
        host.postRecv(peer, buffer);
        const o = outcome('receive from ' + peer, true);
        let queue = receives.get(peer);
        if (queue === undefined) receives.set(peer, (queue = []));
        queue.push(o);
        return o.thenable;
      },
    });
  }

  const qps = new Map();
  const info = host.info;
  const rdma = Object.freeze({
    node: info.node,
    hosts: Object.freeze([...info.hosts]),
    args: info.args,
    now: () => host.nowPs(),
    us: (n) => Math.round(n * 1e6),
    ns: (n) => Math.round(n * 1e3),
    sleep(ps) {
      if (!(Number.isFinite(ps) && ps >= 0)) throw new RangeError(label + ': sleep takes picoseconds ≥ 0, got ' + ps);
      return new Promise((resolve) => {
        const s = { atPs: host.nowPs() + Math.round(ps), seq: sleepSeq++, resolve };
        let i = sleepers.length;
        while (i > 0 && (sleepers[i - 1].atPs > s.atPs)) i--;
        sleepers.splice(i, 0, s);
        armWake();
      });
    },
    random: () => host.random(),
    log: (message, fields) => host.log(String(message), fields ?? null),
    report: (key, value) => host.report(String(key), value),
    region: (name) => host.region(String(name)),
    remote: (node, name) => host.remote(String(node), String(name)),
    connect(peer) {
      peer = String(peer);
      let qp = qps.get(peer);
      if (qp === undefined) {
        host.checkPeer(peer);
        qps.set(peer, (qp = qpFor(peer)));
      }
      return qp;
    },
    counter: (name, help) => host.counter(String(name), String(help)),
    histogram: (name, help, bounds) => host.histogram(String(name), String(help), bounds ?? null),
  });

  return {
    /** Start the app's default export. */
    start(main) {
      ticks.reset();
      let result;
      try {
        result = main(rdma);
      } catch (err) {
        stop(label + ': threw: ' + thrown(err));
        return;
      }
      Promise.resolve(result).then(
        () => { if (ticks.stopped === null) host.finished(); },
        (err) => stop(err instanceof Error && err.message.startsWith(label) ? err.message : label + ': threw: ' + thrown(err)),
      );
    },
    /** Hand in what happened since the last dispatch (completions, receives, the time). */
    dispatch() {
      if (ticks.stopped !== null) return;
      ticks.reset();
      for (const e of host.takeEvents()) {
        if (e.kind === 'completion') {
          const o = works.get(e.id);
          works.delete(e.id);
          if (o === undefined) continue;
          if (e.ok) o.settle(true, Object.freeze(e.original === undefined ? { opcode: e.opcode, bytes: e.bytes, postedPs: e.postedPs, completedPs: e.completedPs } : { opcode: e.opcode, bytes: e.bytes, postedPs: e.postedPs, completedPs: e.completedPs, original: e.original }));
          else o.settle(false, e.error);
        } else {
          const o = receives.get(e.peer)?.shift();
          if (o !== undefined) o.settle(true, Object.freeze({ opcode: e.opcode, bytes: e.bytes, immediate: e.immediate, buffer: e.buffer }));
        }
      }
      const now = host.nowPs();
      while (sleepers.length > 0 && sleepers[0].atPs <= now) sleepers.shift().resolve();
      armWake();
    },
  };
})
`;
