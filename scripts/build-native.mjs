#!/usr/bin/env node
/**
 * Builds the rocelab0 device (issue 25) with the system compiler against Debian's headers:
 * librocelab.so (the program's channel to its host, clocks, the TSC, sockets), libibverbs.so.1,
 * librdmacm.so.1, libmlx5.so.1 and libefa.so.1 with rdma-core's symbol versions, the Node binding the host uses
 * (rocelab_native.node), and the C test programs, all in packages/native/dist; and the C examples
 * (examples/verbs-c/build).
 *
 * A target is rebuilt when one of its sources (or a header) is newer than it. Without gcc or the
 * headers (libibverbs-dev, librdmacm-dev, libcapstone-dev) nothing is built and a host that runs
 * programs says so when the pod loads; ROCELAB_REQUIRE_NATIVE=1 (CI) makes that a build failure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PKG = join(ROOT, 'packages/native');
const C = join(PKG, 'c');
const OUT = join(PKG, 'dist');
const LIB = join(OUT, 'lib');

const CFLAGS = ['-O2', '-g', '-Wall', '-Wextra', '-Wno-unused-parameter', '-fPIC', '-D_GNU_SOURCE', '-std=gnu11', `-I${join(C, 'include')}`];
const RPATH = '-Wl,-rpath,$ORIGIN';
/** Example C programs (examples/verbs-c): each `NAME.c` becomes `build/NAME` beside it (not in git). */
const EXAMPLES = [join(ROOT, 'examples/verbs-c')];

const cfiles = (dir) => (existsSync(join(C, dir)) ? readdirSync(join(C, dir)).filter((f) => f.endsWith('.c')).sort().map((f) => join(C, dir, f)) : []);
const headers = () => [join(C, 'include'), ...['core', 'verbs', 'rdmacm', 'mlx5', 'efa', 'addon', 'launch', 'test'].map((d) => join(C, d))].flatMap((d) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.h') || f.endsWith('.map')).map((f) => join(d, f)) : []));

/** Each shared object: its sources, its soname, its version script, what it links. */
const LIBRARIES = [
  { out: join(LIB, 'librocelab.so'), dir: 'core', soname: 'librocelab.so', map: null, libs: ['-lcapstone', '-ldl', '-lpthread'] },
  { out: join(LIB, 'libibverbs.so.1'), dir: 'verbs', soname: 'libibverbs.so.1', map: 'verbs/libibverbs.map', libs: [`-L${LIB}`, '-lrocelab', '-lpthread', RPATH] },
  { out: join(LIB, 'librdmacm.so.1'), dir: 'rdmacm', soname: 'librdmacm.so.1', map: 'rdmacm/librdmacm.map', libs: [`-L${LIB}`, '-l:libibverbs.so.1', '-lrocelab', '-lpthread', RPATH] },
  { out: join(LIB, 'libmlx5.so.1'), dir: 'mlx5', soname: 'libmlx5.so.1', map: 'mlx5/libmlx5.map', libs: [`-L${LIB}`, '-lrocelab', RPATH] },
  { out: join(LIB, 'libefa.so.1'), dir: 'efa', soname: 'libefa.so.1', map: 'efa/libefa.map', libs: [`-L${LIB}`, '-lrocelab', RPATH] },
];

function newest(files) {
  return Math.max(0, ...files.map((f) => statSync(f).mtimeMs));
}

function stale(out, inputs) {
  return !existsSync(out) || statSync(out).mtimeMs < newest(inputs);
}

function gcc(args) {
  try {
    execFileSync('gcc', args, { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    // gcc printed what went wrong; the command line says which target it was.
    console.error(`build-native: gcc failed: gcc ${args.join(' ')}`);
    process.exit(1);
  }
}

function missing() {
  const need = [];
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
  } catch {
    need.push('gcc');
  }
  for (const [header, pkg] of [['/usr/include/infiniband/verbs.h', 'libibverbs-dev'], ['/usr/include/rdma/rdma_cma.h', 'librdmacm-dev'], ['/usr/include/capstone/capstone.h', 'libcapstone-dev'], ['/usr/include/node/node_api.h', "Node's headers (nodejs)"]]) if (!existsSync(header)) need.push(pkg);
  return need;
}

const need = missing();
if (need.length > 0) {
  const text = `build-native: the rocelab0 device is not built: install ${need.join(', ')} (hosts that run native programs are refused until then)`;
  if (process.env.ROCELAB_REQUIRE_NATIVE === '1') {
    console.error(text);
    process.exit(1);
  }
  console.warn(text);
  process.exit(0);
}

mkdirSync(LIB, { recursive: true });
const common = headers();
let built = 0;
for (const lib of LIBRARIES) {
  const sources = cfiles(lib.dir);
  if (sources.length === 0) continue;
  if (!stale(lib.out, [...sources, ...common])) continue;
  const map = lib.map === null ? [] : [`-Wl,--version-script=${join(C, lib.map)}`];
  gcc([...CFLAGS, '-shared', `-Wl,-soname,${lib.soname}`, ...map, '-o', lib.out, ...sources, ...lib.libs]);
  built++;
}
// The program's channel is found by soname: librocelab.so beside the device's libraries.
const addon = cfiles('addon');
const addonOut = join(OUT, 'rocelab_native.node');
if (addon.length > 0 && stale(addonOut, [...addon, ...common])) {
  gcc([...CFLAGS, '-I/usr/include/node', '-shared', '-o', addonOut, ...addon]);
  built++;
}
// The launcher a host starts each program through (not preloaded, not linked to the device).
const launch = cfiles('launch');
const launchOut = join(OUT, 'bin', 'rocelab-launch');
mkdirSync(join(OUT, 'bin'), { recursive: true });
if (launch.length > 0 && stale(launchOut, [...launch, ...common])) {
  gcc([...CFLAGS, '-o', launchOut, ...launch]);
  built++;
}
mkdirSync(join(OUT, 'test'), { recursive: true });
for (const source of cfiles('test')) {
  const out = join(OUT, 'test', source.slice(source.lastIndexOf('/') + 1, -2));
  if (!stale(out, [source, ...common])) continue;
  // Test programs may call the core directly (rocelab_*: core.h); rpath finds it without LD_PRELOAD.
  const core = existsSync(join(LIB, 'librocelab.so')) ? [`-L${LIB}`, `-Wl,-rpath,${LIB}`, '-lrocelab'] : [];
  gcc([...CFLAGS, '-o', out, source, '-libverbs', '-lrdmacm', ...core, '-lpthread']);
  built++;
}
// The examples are ordinary verbs programs: built against Debian's libibverbs alone, as a user
// would build them; rocelab puts its own libibverbs.so.1 first when it runs them.
for (const dir of EXAMPLES) {
  const sources = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.c')).sort() : [];
  if (sources.length > 0) mkdirSync(join(dir, 'build'), { recursive: true });
  for (const source of sources) {
    const out = join(dir, 'build', source.slice(0, -2));
    if (!stale(out, [join(dir, source)])) continue;
    gcc([...CFLAGS.filter((f) => !f.startsWith('-I')), '-o', out, join(dir, source), '-libverbs']);
    built++;
  }
}
console.log(`build-native: ${built} target(s) built in packages/native/dist and examples/*/build`);
