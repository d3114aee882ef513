#!/usr/bin/env node
/**
 * The `rocelab` command (DESIGN §8). Every error names what is wrong and where, and exits
 * non-zero: 2 for bad input (file, flags), 1 for a run whose audit fails.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { runMemberMain } from '@rocelab/runtime';
import { parseDuration, TopologyError, UnitError } from '@rocelab/topology';
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
const nonNegative = (text: string): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number (wall seconds per virtual second; 0 = as fast as possible)');
  return n;
};

const program = new Command('rocelab')
  .description('An emulation testbed for RDMA (RoCEv2) datacenter networks on deterministic virtual time')
  .showHelpAfterError()
  .exitOverride();

program
  .command('run')
  .description('run a topology for a virtual duration and print its result')
  .argument('<file>', 'topology file (YAML)')
  .requiredOption('--duration <d>', 'virtual duration, e.g. 2ms', duration)
  .option('--seed <n>', "seed (default: the topology's seed, else 1)", integer('a seed', 0))
  .option('--mode <mode>', 'inproc (one process) or procs (one process per node)', 'inproc')
  .option('--workers <k>', 'run the nodes in K worker processes', integer('a worker count', 1))
  .option('--dilation <d>', 'wall seconds per virtual second (pacing; never changes results)', nonNegative, 0)
  .option('--json', 'print exactly one JSON line on stdout')
  .addOption(new Option('--debug-uncounted-loss <node>', 'self-test of the conservation audit').hideHelp())
  .action(async (file: string, o: { duration: number; seed?: number; mode: string; workers?: number; dilation: number; json?: boolean; debugUncountedLoss?: string }, cmd: Command) => {
    if (o.mode !== 'inproc' && o.mode !== 'procs') cmd.error(`error: --mode: expected inproc or procs, got ${o.mode}`, { exitCode: 2 });
    process.exitCode = await runCommand(file, {
      seed: o.seed ?? null,
      durationPs: o.duration,
      mode: o.mode,
      workers: o.workers ?? null,
      dilation: o.dilation,
      json: o.json === true,
      debugUncountedLoss: o.debugUncountedLoss ?? null,
    });
  });

program
  .command('up')
  .description('run a pod as local processes with live /metrics until Ctrl-C')
  .argument('[file]', 'topology file', 'test/fixtures/tree.yaml')
  .option('--dilation <d>', 'wall seconds per virtual second', nonNegative, 1000)
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
  .option('--permutation <size>', 'add a permutation workload: every host sends one flow of this size, e.g. 1GB')
  .option('--pingmesh <interval>', 'add pingmesh probes between every pair of hosts at this interval, e.g. 100us')
  .action((o: { spines: number; leavesPerPod: number; torsPerPod: number; pods: number; hostsPerTor: number; rate: string; latency: string; name?: string; seed?: number; permutation?: string; pingmesh?: string }) => {
    process.exitCode = closCommand(o);
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
