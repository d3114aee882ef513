#!/usr/bin/env node
/**
 * The `rocelab` command (DESIGN §8). Every error names what is wrong and where, and exits
 * non-zero: 2 for bad input (file, flags), 1 for a run whose audit fails.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { runMemberMain, VERSION } from '@rocelab/runtime';
import { LIVE_DILATION, parseDuration, TopologyError, UnitError } from '@rocelab/topology';
import { composeCommand, containerCommand } from './compose.js';
import { statusCommand } from './progress.js';
import { runCommand } from './run.js';
import { closCommand, validateCommand } from './topology.js';
import { upCommand } from './up.js';

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
  .option('--mode <mode>', 'inproc (one process), procs (one process per node) or docker (one container per node)', 'inproc')
  .option('--image <image>', 'the rocelab image for --mode docker', process.env.ROCELAB_IMAGE ?? 'rocelab:local')
  .option('--workers <k>', 'run the nodes in K worker processes', integer('a worker count', 1))
  .option('--dilation <d>', 'wall seconds per virtual second (pacing; never changes results)', nonNegative, 0)
  .option('--json', 'print exactly one JSON line on stdout')
  .addOption(new Option('--debug-uncounted-loss <node>', 'self-test of the conservation audit').hideHelp())
  .action(async (file: string, o: { duration: number; seed?: number; mode: string; image: string; workers?: number; dilation: number; json?: boolean; debugUncountedLoss?: string }, cmd: Command) => {
    if (o.mode !== 'inproc' && o.mode !== 'procs' && o.mode !== 'docker') cmd.error(`error: --mode: expected inproc, procs or docker, got ${o.mode}`, { exitCode: 2 });
    if (o.mode === 'docker' && o.debugUncountedLoss !== undefined) cmd.error('error: --debug-uncounted-loss is not available with --mode docker', { exitCode: 2 });
    process.exitCode = await runCommand(file, {
      seed: o.seed ?? null,
      durationPs: o.duration,
      mode: o.mode,
      image: o.image,
      workers: o.workers ?? null,
      dilation: o.dilation,
      json: o.json === true,
      debugUncountedLoss: o.debugUncountedLoss ?? null,
    });
  });

program
  .command('up')
  .description('run a pod as local processes with live /metrics until Ctrl-C')
  .argument('[file]', 'topology file', 'deploy/pods/default.yaml')
  .option('--dilation <d>', 'wall seconds per virtual second (the Emulator dashboard shows the lag if the machine cannot keep up)', nonNegative, LIVE_DILATION)
  .option('--duration <d>', 'stop after this much virtual time', duration)
  .option('--seed <n>', 'seed', integer('a seed', 0))
  .option('--workers <k>', 'K worker processes instead of one per node', integer('a worker count', 1))
  .action(async (file: string, o: { dilation: number; duration?: number; seed?: number; workers?: number }, cmd: Command) => {
    if (o.dilation === 0 && o.duration === undefined) cmd.error('error: --dilation 0 runs as fast as possible: give a --duration', { exitCode: 2 });
    process.exitCode = await upCommand(file, { dilation: o.dilation, durationPs: o.duration ?? null, seed: o.seed ?? null, workers: o.workers ?? null });
  });

const topology = program.command('topology').description('work with topology files');
topology
  .command('validate')
  .description('check a topology against the schema and the wiring rules')
  .argument('<file>', 'topology file')
  .action((file: string) => {
    process.exitCode = validateCommand(file);
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
  .option('--permutation <size>', 'add a permutation workload: every host sends one flow of this size, e.g. 1GB')
  .option('--pingmesh <interval>', 'add pingmesh probes between every pair of hosts at this interval, e.g. 100us')
  .option('--pause-storm <host@time>', "add a malfunctioning NIC: the host's NIC pauses its ToR from that virtual time on, e.g. h16@10ms", hostAtTime)
  .action((o: { spines: number; leavesPerPod: number; torsPerPod: number; pods: number; hostsPerTor: number; rate: string; latency: string; name?: string; seed?: number; timing?: 'default' | 'drill'; permutation?: string; pingmesh?: string; pauseStorm?: { host: string; at: string } }) => {
    process.exitCode = closCommand(o);
  });

program
  .command('status')
  .description("ask a running pod's controller: virtual time, dilation, lag, windows/s, nodes up")
  .option('--controller <url>', 'the controller (rocelab up prints it; compose publishes it on 127.0.0.1:7000)', 'http://127.0.0.1:7000')
  .option('--json', 'print the controller\'s JSON')
  .action(async (o: { controller: string; json?: boolean }) => {
    process.exitCode = await statusCommand(o.controller, o.json === true);
  });

program
  .command('compose')
  .description('print the compose file of a topology: controller, one service per node, Prometheus and Grafana')
  .argument('<file>', 'topology file; its directory is mounted into every container')
  .action((file: string) => {
    process.exitCode = composeCommand(file);
  });

program
  .command('container', { hidden: true })
  .description('the entry point of the rocelab image: ROCELAB_ROLE=controller|switch|host|member')
  .action(async () => {
    process.exitCode = await containerCommand();
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
  if (err instanceof TopologyError) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
  } else if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('commander.')) {
    // Commander has printed its message; usage errors exit 2, help exits 0.
    const exitCode = (err as { exitCode?: number }).exitCode ?? 2;
    process.exitCode = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : exitCode === 1 ? 2 : exitCode;
  } else {
    process.stderr.write(`rocelab: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  }
}
