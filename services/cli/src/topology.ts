/**
 * `rocelab topology validate FILE`: the schema and the wiring rules, before anything starts.
 * `rocelab topology clos …`: a generated three-tier Clos as YAML on stdout.
 */
import { ClosError, formatIpv4, generateClos, loadTopologyFile, type ClosOptions, type ProgramSpec } from '@rocelab/topology';

export function validateCommand(file: string): number {
  const pod = loadTopologyFile(file);
  const hosts = pod.nodes.filter((n) => n.role === 'host');
  process.stdout.write(
    `${file}: valid — pod ${pod.name}, ${pod.nodes.length} nodes (${hosts.length} hosts), ${pod.links.length} links, ${pod.workloads.length} workloads, profile ${pod.profile}, timing ${pod.timing}\n`,
  );
  for (const h of hosts) process.stdout.write(`  ${h.name} ${formatIpv4(h.ip)}\n`);
  for (const module of new Set(pod.apps.map((a) => a.module))) {
    const nodes = pod.apps.filter((a) => a.module === module).map((a) => a.node);
    process.stdout.write(`app ${module} on ${nodes.join(', ')}: bundled and type-checked, not run (an app is code: only the commands that run the pod run it, in its sandbox)\n`);
  }
  for (const p of pod.programs) process.stdout.write(`${programLine(p)}\n`);
  return 0;
}

/** A program as `topology validate` describes it: where it runs and what, expanded; not run. */
export function programLine(p: ProgramSpec): string {
  const env = Object.entries(p.env).map(([k, v]) => `${k}=${quoteArg(v)} `).join('');
  return `program ${p.node}[${p.index}]: ${env}${p.argv.map(quoteArg).join(' ')} (in ${p.cwd}, timeout ${p.timeoutMs / 1000} s): not run (a program is code: only the commands that run the pod run it)`;
}

/** An argument as a shell would need it written, so the line can be pasted. */
function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The options as a canonical command line, so the file records how to make it again. */
export function closCommandLine(o: Omit<ClosOptions, 'command'>): string {
  const words = [
    'rocelab topology clos',
    `--spines ${o.spines}`,
    `--leaves-per-pod ${o.leavesPerPod}`,
    `--tors-per-pod ${o.torsPerPod}`,
    `--pods ${o.pods}`,
    `--hosts-per-tor ${o.hostsPerTor}`,
    `--rate ${o.rate}`,
    `--latency ${o.latency}`,
  ];
  if (o.name !== undefined) words.push(`--name ${o.name}`);
  if (o.seed !== undefined) words.push(`--seed ${o.seed}`);
  if (o.timing !== undefined) words.push(`--timing ${o.timing}`);
  if (o.switchPipeline !== undefined) words.push(`--switch-pipeline ${o.switchPipeline}`);
  if (o.hostPipeline !== undefined) words.push(`--host-pipeline ${o.hostPipeline}`);
  if (o.permutation !== undefined) words.push(`--permutation ${o.permutation}`);
  if (o.pingmesh !== undefined) words.push(`--pingmesh ${o.pingmesh}`);
  if (o.pauseStorm !== undefined) words.push(`--pause-storm ${o.pauseStorm.host}@${o.pauseStorm.at}`);
  if (o.qpMetrics === true) words.push('--qp-metrics');
  return words.join(' ');
}

export function closCommand(options: Omit<ClosOptions, 'command'>): number {
  try {
    process.stdout.write(generateClos({ ...options, command: closCommandLine(options) }));
    return 0;
  } catch (err) {
    if (!(err instanceof ClosError)) throw err;
    process.stderr.write(`rocelab topology clos: ${err.message.split('; ').join('\n  ')}\n`);
    return 2;
  }
}
