#!/usr/bin/env node
/**
 * The `rocelab` command (DESIGN §8). Every error names what is wrong and where, and exits
 * non-zero: 2 for bad input (file, flags), 1 for a run whose audit fails or that failed (a
 * member process that died, a bug).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_PCAP_SNAPLEN, DEFAULT_TRACE_SETTINGS, HttpLimitsError, LivenessConfigError, runMemberMain, VERSION, type TraceSettings } from '@rocelab/runtime';
import { PCAP_MAX_SNAPLEN } from '@rocelab/wire';
import { LIVE_DILATION, parseDuration, TopologyError, UnitError } from '@rocelab/topology';
import { compareCommand, toleranceOption, windowOption, type CompareFlags } from './compare.js';

// Each command's module is loaded when that command runs: `rocelab member` (every worker
// process) and `rocelab status` need none of Docker, Vega or the drill machinery.
const commands = {
  compose: () => import('./compose.js'),
  down: () => import('./down.js'),
  drill: () => import('./drill.js'),
  fault: () => import('./fault.js'),
  import: () => import('./import.js'),
  faultExport: () => import('./fault-export.js'),
  k8s: () => import('./k8s.js'),
  stack: () => import('./stack.js'),
  progress: () => import('./progress.js'),
  run: () => import('./run.js'),
  topology: () => import('./topology.js'),
  up: () => import('./up.js'),
};

const duration = (text: string): number => {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof UnitError ? `expected ${err.expected}` : String(err));
  }
};
const integer = (what: string, min: number) => (text: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`expected ${what} (an integer ≥ ${min})`);
  return n;
};
const hostAtTime = (text: string): { host: string; at: string } => {
  // The generator checks the host and the time; here only the shape.
  const m = /^([^@\s]+)@(\S+)$/.exec(text);
  if (m === null) throw new InvalidArgumentError('expected HOST@TIME, e.g. h16@10ms');
  return { host: m[1]!, at: m[2]! };
};
const nonNegative = (text: string): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number (wall seconds per virtual second; 0 = as fast as possible)');
  return n;
};

/** `--trace-interval 10us` (rates.csv) or `rates=10us,queue=1us`. */
const traceInterval = (text: string): Partial<TraceSettings> => {
  const form = 'a duration such as 10us, or rates=10us,queue=1us (each above 0)';
  const positive = (value: string): number => {
    const ps = duration(value);
    if (ps <= 0) throw new InvalidArgumentError(`expected ${form}`);
    return ps;
  };
  if (!text.includes('=')) return { ratesIntervalPs: positive(text) };
  const out: Partial<TraceSettings> = {};
  for (const item of text.split(',')) {
    const [key, value] = item.split('=') as [string, string | undefined];
    if (value === undefined || (key !== 'rates' && key !== 'queue')) throw new InvalidArgumentError(`${JSON.stringify(item)}: expected ${form}`);
    out[key === 'rates' ? 'ratesIntervalPs' : 'queueIntervalPs'] = positive(value);
  }
  return out;
};
/** Below 70 bytes a capture would cut into the RoCEv2 headers (Ethernet + IPv4 + UDP + BTH + RETH). */
const MIN_SNAPLEN = 70;
const snaplen = (text: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < MIN_SNAPLEN || n > PCAP_MAX_SNAPLEN) throw new InvalidArgumentError(`expected a whole number of bytes from ${MIN_SNAPLEN} (the RoCEv2 headers) to ${PCAP_MAX_SNAPLEN}`);
  return n;
};

interface RunFlags {
  duration: number;
  seed?: number;
  mode: string;
  image: string;
  workers?: number;
  threads?: number;
  dilation: number;
  json?: boolean;
  debugUncountedLoss?: string;
  trace?: string;
  traceInterval?: Partial<TraceSettings>;
  pcap?: string;
  pcapPorts?: string[];
  pcapSnaplen?: number;
  faults?: string;
  respawn?: boolean;
  kubeconfig?: string;
  namespace?: string;
}

/** `--threads` splits one process: it has no meaning with members (`--mode procs`, `--workers`). */
function threadsRefusal(o: { threads?: number; mode: string; workers?: number }): string | null {
  if (o.threads === undefined || (o.mode === 'inproc' && o.workers === undefined)) return null;
  return `error: --threads is for one process (--mode inproc without --workers), not ${o.workers !== undefined ? '--workers' : `--mode ${o.mode}`}`;
}

// `rocelab … | head` closes our stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command('rocelab')
  .description('An emulation testbed for RDMA (RoCEv2) datacenter networks on deterministic virtual time')
  .version(VERSION)
  .showHelpAfterError()
  .exitOverride();

program
  .command('run')
  .description('run a topology for a virtual duration and print its result')
  .argument('<file>', 'topology file (YAML)')
  .requiredOption('--duration <d>', 'virtual duration, e.g. 2ms', duration)
  .option('--seed <n>', "seed (default: the topology's seed, else 1)", integer('a seed', 0))
  .option('--mode <mode>', 'inproc (one process), procs (one process per node), docker (one container per node) or k8s (one Kubernetes pod per node)', 'inproc')
  .option('--image <image>', 'the rocelab image for --mode docker and k8s', process.env.ROCELAB_IMAGE ?? 'rocelab:local')
  .option('--kubeconfig <file>', '--mode k8s: the cluster (default: KUBECONFIG, ~/.kube/config, in-cluster)')
  .option('--namespace <n>', '--mode k8s: the namespace the run creates and deletes, which must not exist (default rocelab-run-POD-RANDOM)')
  .option('--workers <k>', 'run the nodes in K worker processes (docker, k8s: K containers)', integer('a worker count', 1))
  .option('--threads <k>', 'inproc: run the nodes in K threads of this process (default: one per core for pods of 500 nodes or more, else 1)', integer('a thread count', 1))
  .option('--dilation <d>', 'wall seconds per virtual second (pacing; never changes results; k8s: CPU requests scale with its inverse)', nonNegative, 0)
  .option('--json', 'print exactly one JSON line on stdout')
  .option('--trace <dir>', 'write rates.csv, queue.csv, pfc.csv and fct.csv there (the same bytes in every mode)')
  .option('--trace-interval <grid>', `grid of rates.csv (default 10us), or rates=10us,queue=1us for both grids`, traceInterval)
  .option('--pcap <dir>', 'write one pcap per captured port there (RoCEv2 and PFC as real bytes, virtual-time ns)')
  .option('--pcap-ports <list>', 'ports to capture, node:port,… (default: every host port)', (text: string) => text.split(',').map((p) => p.trim()).filter(Boolean))
  .option('--faults <log>', 'apply the live faults of a fault log again (rocelab up --fault-log): the same run, the same trace hash')
  .option('--respawn', 'procs, workers, docker, k8s: a member process that dies is started again and rejoins with fresh state')
  .option('--pcap-snaplen <bytes>', `bytes kept of each frame (${MIN_SNAPLEN}–262144; default whole frames)`, snaplen)
  .addOption(new Option('--debug-uncounted-loss <node>', 'self-test of the conservation audit').hideHelp())
  .action(async (file: string, o: RunFlags, cmd: Command) => {
    if (o.mode !== 'inproc' && o.mode !== 'procs' && o.mode !== 'docker' && o.mode !== 'k8s') cmd.error(`error: --mode: expected inproc, procs, docker or k8s, got ${o.mode}`, { exitCode: 2 });
    if ((o.mode === 'docker' || o.mode === 'k8s') && o.debugUncountedLoss !== undefined) cmd.error(`error: --debug-uncounted-loss is not available with --mode ${o.mode}`, { exitCode: 2 });
    if (o.mode !== 'k8s' && (o.kubeconfig !== undefined || o.namespace !== undefined)) cmd.error(`error: ${o.kubeconfig !== undefined ? '--kubeconfig' : '--namespace'} needs --mode k8s`, { exitCode: 2 });
    if (o.mode === 'k8s' && (o.trace !== undefined || o.pcap !== undefined)) cmd.error(`error: ${o.trace !== undefined ? '--trace' : '--pcap'} is not available with --mode k8s: the cluster's pods cannot write to this machine's directories`, { exitCode: 2 });
    const threadsRefused = threadsRefusal(o);
    if (threadsRefused !== null) cmd.error(threadsRefused, { exitCode: 2 });
    if (o.trace === undefined && o.traceInterval !== undefined) cmd.error('error: --trace-interval needs --trace DIR', { exitCode: 2 });
    if (o.pcap === undefined && (o.pcapPorts !== undefined || o.pcapSnaplen !== undefined)) cmd.error('error: --pcap-ports and --pcap-snaplen need --pcap DIR', { exitCode: 2 });
    process.exitCode = await (await commands.run()).runCommand(file, {
      seed: o.seed ?? null,
      durationPs: o.duration,
      mode: o.mode,
      image: o.image,
      workers: o.workers ?? null,
      threads: o.threads ?? null,
      dilation: o.dilation,
      json: o.json === true,
      debugUncountedLoss: o.debugUncountedLoss ?? null,
      trace: o.trace === undefined ? null : { dir: o.trace, ...DEFAULT_TRACE_SETTINGS, ...o.traceInterval },
      pcap: o.pcap === undefined ? null : { dir: o.pcap, ports: o.pcapPorts ?? null, snaplen: o.pcapSnaplen ?? DEFAULT_PCAP_SNAPLEN },
      faults: o.faults ?? null,
      respawn: o.respawn === true,
      kubeconfig: o.kubeconfig ?? null,
      namespace: o.namespace ?? null,
    });
  });

program
  .command('up')
  .description('run a pod as local processes with live /metrics until Ctrl-C')
  .argument('[file]', 'topology file', 'deploy/pods/default.yaml')
  .option('--dilation <d>', 'wall seconds per virtual second, fixed (default: run the first windows unpaced, then keep 1.5 times the pace they took; rocelab status shows it, and the lag if the machine cannot keep up)', nonNegative)
  .option('--duration <d>', 'stop after this much virtual time', duration)
  .option('--seed <n>', 'seed', integer('a seed', 0))
  .option('--workers <k>', 'K worker processes instead of one per node', integer('a worker count', 1))
  .option('--fault-log <file>', 'when the pod stops, write its fault log there (replay: rocelab run --faults)')
  .action(async (file: string, o: { dilation?: number; duration?: number; seed?: number; workers?: number; faultLog?: string }, cmd: Command) => {
    if (o.dilation === 0 && o.duration === undefined) cmd.error('error: --dilation 0 runs as fast as possible: give a --duration', { exitCode: 2 });
    process.exitCode = await (await commands.up()).upCommand(file, { dilation: o.dilation ?? 'auto', durationPs: o.duration ?? null, seed: o.seed ?? null, workers: o.workers ?? null, faultLog: o.faultLog ?? null });
  });

program
  .command('down')
  .description("stop the pod this user's rocelab up runs, in order (as Ctrl-C does), and wait until it is gone; with several, the one started last (rocelab status shows it)")
  .option('--pid <pid>', 'the process of the rocelab up to stop, when several run', integer('a process id', 1))
  .option('--timeout <seconds>', 'kill rocelab up if it has not stopped after this long', integer('a number of seconds', 1), 60)
  .action(async (o: { timeout: number; pid?: number }) => {
    process.exitCode = await (await commands.down()).downCommand({ timeoutMs: o.timeout * 1000, pid: o.pid ?? null });
  });

const topology = program.command('topology').description('work with topology files');
topology
  .command('validate')
  .description('check a topology against the schema and the wiring rules')
  .argument('<file>', 'topology file')
  .action(async (file: string) => {
    process.exitCode = (await commands.topology()).validateCommand(file);
  });
topology
  .command('clos')
  .description('generate a three-tier Clos (every ToR to every leaf of its pod, every leaf to every spine) as YAML on stdout')
  .requiredOption('--spines <s>', 'spine switches', integer('a spine count', 1))
  .requiredOption('--leaves-per-pod <l>', 'leaves in each pod', integer('a leaf count', 1))
  .requiredOption('--tors-per-pod <t>', 'ToRs in each pod', integer('a ToR count', 1))
  .requiredOption('--pods <p>', 'pods', integer('a pod count', 1))
  .requiredOption('--hosts-per-tor <h>', 'hosts under each ToR', integer('a host count', 1))
  .option('--rate <rate>', 'rate of every link', '40G')
  .option('--latency <d>', 'one-way latency of every link', '1us')
  .option('--name <name>', 'pod name (default clos-S-L-T-P-H)')
  .option('--seed <n>', 'pod seed', integer('a seed', 0))
  .addOption(new Option('--timing <timing>', 'drill: watchdog and stall-prevention timers scaled down (2 ms detection)').choices(['default', 'drill']))
  .option('--switch-pipeline <d>', "every switch's fixed pipeline latency, added to what it sends (default 0), e.g. 600ns")
  .option('--host-pipeline <d>', "every host NIC's fixed pipeline latency, added to what it sends (default 0)")
  .option('--permutation <size>', 'add a permutation workload: every host sends one flow of this size, e.g. 1GB')
  .option('--pingmesh <interval>', 'add pingmesh probes between every pair of hosts at this interval, e.g. 100us')
  .option('--pause-storm <host@time>', "add a malfunctioning NIC: the host's NIC pauses its ToR from that virtual time on, e.g. h16@10ms", hostAtTime)
  .option('--qp-metrics', "every NIC exports its QPs' DCQCN rate, target and α (the DCQCN dashboard's per-QP panels)")
  .action(async (o: { spines: number; leavesPerPod: number; torsPerPod: number; pods: number; hostsPerTor: number; rate: string; latency: string; name?: string; seed?: number; timing?: 'default' | 'drill'; switchPipeline?: string; hostPipeline?: string; permutation?: string; pingmesh?: string; pauseStorm?: { host: string; at: string }; qpMetrics?: boolean }) => {
    process.exitCode = (await commands.topology()).closCommand(o);
  });

const importer = program.command('import').description("turn another simulator's experiment into a rocelab pod");
importer
  .command('hpcc-ns3')
  .description("read HPCC ns-3's config.txt and the topology, flow and trace files it names, and write a pod (YAML with comments saying where each setting comes from and what is approximated)")
  .argument('<config>', 'the simulator\'s config.txt (the files it names are found relative to its working directory, the config\'s parent\'s parent, or beside the config)')
  .option('-o, --out <file>', 'write the pod there (default: stdout)')
  .option('--name <name>', 'the pod name (default hpcc-ns3-DIR, DIR the config\'s directory)')
  .action(async (config: string, o: { out?: string; name?: string }) => {
    process.exitCode = (await commands.import()).importHpccCommand(config, { out: o.out ?? null, name: o.name ?? null });
  });

program
  .command('status')
  .description("ask a running pod's controller: virtual time, dilation, lag, windows/s, the pace it keeps, nodes up, when the next fault comes")
  .option('--controller <url>', 'the controller (default: ROCELAB_CONTROLLER, else the pod this user\'s rocelab up runs — the one started last, when several do — else compose\'s http://127.0.0.1:7000)')
  .option('--json', 'print the controller\'s JSON')
  .action(async (o: { controller?: string; json?: boolean }) => {
    process.exitCode = await (await commands.progress()).statusCommand(o.controller ?? null, o.json === true);
  });

program
  .command('compose')
  .description('print the compose file of a topology: controller, one service per node, Prometheus and Grafana')
  .argument('<file>', 'topology file; its directory is mounted into every container')
  .action(async (file: string) => {
    process.exitCode = (await commands.compose()).composeCommand(file);
  });

program
  .command('stack')
  .description('print a Docker Swarm stack file of a topology: overlay network, controller, one service per node (or worker), Prometheus, Grafana; the token a secret, the topology a config')
  .argument('<file>', 'topology file')
  .option('--workers <k>', 'one service per worker of K, a worker\'s nodes in one container', integer('a worker count', 1))
  .option('--place-on <hosts>', 'Swarm node hostnames, comma-separated: member i on host i mod n, the controller and Prometheus on the first')
  .action(async (file: string, o: { workers?: number; placeOn?: string }) => {
    process.exitCode = (await commands.stack()).stackCommand(file, o);
  });

program
  .command('k8s')
  .description('print the Kubernetes manifests of a topology: the controller, one pod per node or worker, the token as a Secret, the topology as a ConfigMap')
  .argument('<file>', 'topology file (self-contained: it travels as a ConfigMap)')
  .option('--workers <k>', 'K worker pods instead of one per node', integer('a worker count', 1))
  .option('--namespace <n>', 'the namespace of every object, a DNS-1123 label (default rocelab-POD)')
  .option('--token-file <file>', 'a file holding the pod token (default: a fresh random token)')
  .option('--image <image>', 'the rocelab image (npm run image)', 'rocelab:local')
  .option('--dilation <d>', 'wall seconds per virtual second; CPU requests scale with its inverse', nonNegative, LIVE_DILATION)
  .option('--duration <d>', 'stop after this much virtual time, and the controller prints the result (default: until deleted)', (text: string) => (duration(text), text))
  .option('--pod-monitor', 'also a prometheus-operator PodMonitor that scrapes every node (needs its CRD)')
  .action(async (file: string, o: { workers?: number; namespace?: string; tokenFile?: string; image: string; dilation: number; duration?: string; podMonitor?: boolean }) => {
    process.exitCode = (await commands.k8s()).k8sCommand(file, {
      workers: o.workers ?? null,
      namespace: o.namespace ?? null,
      tokenFile: o.tokenFile ?? null,
      image: o.image,
      dilation: o.dilation,
      duration: o.duration ?? null,
      podMonitor: o.podMonitor === true,
    });
  });

const fault = program.command('fault').description("a running pod's faults: inject one, list them, clear one (the pod token: --token or ROCELAB_POD_TOKEN)");
const controllerOption = () => new Option('--controller <url>', 'the controller (rocelab up prints it)').default('http://127.0.0.1:7000');
fault
  .command('inject')
  .description('inject a fault now (or at a later virtual time); it is stamped, logged and replays')
  .requiredOption('--kind <kind>', 'a fault kind: linkDown, linkFlap, loss, corrupt, nicPauseStorm, slowReceiver, macFlush, arpExpire, pfcMisconfig, ecnMisconfig, watchdog, packetEvent, …')
  .requiredOption('--target <target>', 'node:port for a link fault, a node, or FROM>TO for a packet event')
  .option('--at <time>', 'now (default), +D after the next lease starts, or an absolute virtual time like 12ms')
  .option('--for <d>', 'undo it after this long, e.g. 5ms')
  .option('--set <key=value>', "the kind's other keys, e.g. --set rate=1/256 --set direction=out (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
  .addOption(controllerOption())
  .option('--token <token>', 'the pod token (default ROCELAB_POD_TOKEN)')
  .option('--json', 'print the fault as one JSON line')
  .action(async (o: { kind: string; target: string; at?: string; for?: string; set: string[]; controller: string; token?: string; json?: boolean }) => {
    process.exitCode = await (await commands.fault()).faultInjectCommand({ kind: o.kind, target: o.target, at: o.at ?? null, for: o.for ?? null, set: o.set, controller: o.controller, token: o.token ?? null, json: o.json === true });
  });
fault
  .command('list')
  .description("the pod's faults: when each applies, until when, and its state")
  .addOption(controllerOption())
  .option('--token <token>', 'the pod token (default ROCELAB_POD_TOKEN)')
  .option('--json', 'print the controller\'s JSON')
  .action(async (o: { controller: string; token?: string; json?: boolean }) => {
    process.exitCode = await (await commands.fault()).faultListCommand({ controller: o.controller, token: o.token ?? null, json: o.json === true });
  });
fault
  .command('clear')
  .description('withdraw a fault not applied yet, or undo one that applied; without ID, all of them')
  .argument('[id]', 'the fault number (rocelab fault list)')
  .addOption(controllerOption())
  .option('--token <token>', 'the pod token (default ROCELAB_POD_TOKEN)')
  .option('--json', "print the controller's JSON")
  .action(async (id: string | undefined, o: { controller: string; token?: string; json?: boolean }) => {
    process.exitCode = await (await commands.fault()).faultClearCommand(id, { controller: o.controller, token: o.token ?? null, json: o.json === true });
  });

fault
  .command('export')
  .description("a live session's fault log (rocelab up --fault-log) as a drill on stdout: the faults as they applied (a cleared fault gets for), expectations drafted from what the session did, commented as drafts to edit. It runs the pod again in this process, from the log's seed, to draft them (deterministic: the session's trace hash, checked); rocelab drill run of the drill gives that hash")
  .argument('<log>', 'the fault log (rocelab up --fault-log FILE)')
  .requiredOption('--topology <file>', "the session's topology file (named in the drill relative to where stdout goes)")
  .action(async (log: string, o: { topology: string }) => {
    process.exitCode = await (await commands.faultExport()).faultExportCommand(log, { topology: o.topology });
  });

const drill = program.command('drill').description('fault-injection drills: run one and get a report, or list the built-in ones');
drill
  .command('run')
  .description('run a drill (every variant, or one) and write its report; exit 0 only when every expectation holds')
  .argument('<file>', 'drill file (YAML)')
  .option('--mode <mode>', 'inproc (one process), procs (one process per node) or docker (one container per node)', 'inproc')
  .option('--workers <k>', 'run the nodes in K worker processes', integer('a worker count', 1))
  .option('--threads <k>', 'inproc: run the nodes in K threads of this process (default: one per core for pods of 500 nodes or more, else 1)', integer('a thread count', 1))
  .option('--image <image>', 'the rocelab image for --mode docker', process.env.ROCELAB_IMAGE ?? 'rocelab:local')
  .option('--variant <name>', 'run only this variant')
  .option('--out <dir>', 'where the report goes (default out/drills/<drill>)')
  .option('--json', 'print the report as exactly one JSON line on stdout')
  .option('--faults <log>', "replay a live session's faults (rocelab up --fault-log) into every variant, after the variant's own (checked against each variant's pod and the drill's seed)")
  .option('--pcap [ports]', 'capture each variant into OUT/<variant>/pcap: every host port, or the node:port,… given')
  .action(async (file: string, o: { mode: string; workers?: number; threads?: number; image: string; variant?: string; out?: string; json?: boolean; pcap?: string | true; faults?: string }, cmd: Command) => {
    if (o.mode !== 'inproc' && o.mode !== 'procs' && o.mode !== 'docker') cmd.error(`error: --mode: expected inproc, procs or docker, got ${o.mode}`, { exitCode: 2 });
    const threadsRefused = threadsRefusal(o);
    if (threadsRefused !== null) cmd.error(threadsRefused, { exitCode: 2 });
    const pcap = o.pcap === undefined ? null : { ports: o.pcap === true ? null : o.pcap.split(',').map((p) => p.trim()).filter(Boolean) };
    process.exitCode = await (await commands.drill()).drillRunCommand(file, { mode: o.mode, workers: o.workers ?? null, threads: o.threads ?? null, image: o.image, variant: o.variant ?? null, out: o.out ?? null, json: o.json === true, pcap, faults: o.faults ?? null });
  });
drill
  .command('list')
  .description('the built-in drills, one line each')
  .action(async () => {
    process.exitCode = (await commands.drill()).drillListCommand();
  });

program
  .command('compare')
  .description("compare a run's trace CSVs with a reference of one or more runs; exit 1 if a row leaves [min·(1−t), max·(1+t)]")
  .argument('<ref-dir>', 'reference: rates.csv, queue.csv, pfc.csv, fct.csv, with a run column for several runs')
  .argument('<run-dir>', 'the run: rocelab run … --trace DIR')
  .option('--tolerance <spec>', 'per-group tolerances, e.g. fct=10%,pauses=25% (keys fct, rate, queue, pauses, marks, cnps, all; default 10 %)', toleranceOption)
  .option('--window <a-b>', "steady window for the rate rows, e.g. 1ms-5ms (default: the second half of the run's rates.csv)", windowOption)
  .option('--all', 'list every passing row, even when there are many')
  .option('--json', 'print exactly one JSON line on stdout')
  .action((refDir: string, runDir: string, o: CompareFlags) => {
    process.exitCode = compareCommand(refDir, runDir, o);
  });

program
  .command('container', { hidden: true })
  .description('the entry point of the rocelab image: ROCELAB_ROLE=controller|switch|host|member')
  .action(async () => {
    process.exitCode = await (await commands.compose()).containerCommand();
  });

program
  .command('member', { hidden: true })
  .description('run a member process from ROCELAB_* environment variables (used by --workers)')
  .action(async () => {
    await runMemberMain('any');
  });

try {
  await program.parseAsync();
} catch (err) {
  if (err instanceof TopologyError || err instanceof HttpLimitsError || err instanceof LivenessConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
  } else if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('commander.')) {
    // Commander has printed its message; usage errors exit 2, help exits 0.
    const exitCode = (err as { exitCode?: number }).exitCode ?? 2;
    process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : exitCode === 1 ? 2 : exitCode;
  } else {
    // Not bad input: a run that broke (a member process that failed, a container pod without a
    // result) or a bug. 2 means only bad input (docs/errors.md).
    process.stderr.write(`rocelab: ${err instanceof Error ? (process.env.ROCELAB_LOG_LEVEL === 'debug' ? err.stack : err.message) : String(err)}\n`);
    process.exitCode = 1;
  }
}
