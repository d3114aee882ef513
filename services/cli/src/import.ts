/**
 * `rocelab import hpcc-ns3 CONFIG [-o POD.yaml]`: reads the HPCC ns-3 simulator's config.txt and
 * the topology, flow and trace files it names, and writes a rocelab pod. The mapping is pure
 * (`@rocelab/topology` import-hpcc*.ts); this module only finds and reads the files and writes
 * the YAML (docs/hpcc-ns3-import.md).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { ImportError, InputFileError, hpccInputNames, hpccToPod, parseHpccConfig, parseHpccFlows, parseHpccTopology, parseHpccTrace, readInputFile } from '@rocelab/topology';

export interface ImportFlags {
  out: string | null;
  name: string | null;
}

/**
 * Where a file config.txt names is: the simulator opens it relative to its working directory,
 * which for `mix/config.txt` naming `mix/topology.txt` is the config's parent's parent; a copy
 * with the files beside the config is accepted too.
 */
function locate(config: string, named: string): { path: string; how: string } | { tried: string[] } {
  if (isAbsolute(named)) return existsSync(named) ? { path: named, how: 'at its absolute path' } : { tried: [named] };
  const candidates: Array<[string, string]> = [
    [join(dirname(dirname(config)), named), "in the simulator's working directory (the config's parent's parent)"],
    [join(dirname(config), named), "in the config's directory"],
    [join(dirname(config), basename(named)), 'beside the config, by file name'],
  ];
  for (const [path, how] of candidates) if (existsSync(path)) return { path, how };
  return { tried: [...new Set(candidates.map(([p]) => p))] };
}

export function importHpccCommand(config: string, flags: ImportFlags): number {
  try {
    const cfg = parseHpccConfig(readInputFile(config, 'HPCC ns-3 config.txt'), config);
    const names = hpccInputNames(cfg);
    const found = {} as Record<keyof typeof names, string>;
    const hows = new Set<string>();
    for (const key of ['topology', 'flow', 'trace'] as const) {
      const where = locate(config, names[key].path);
      if ('tried' in where) throw new ImportError(config, names[key].line, `${key.toUpperCase()}_FILE`, names[key].path, `a file that exists (tried ${where.tried.join(', ')})`);
      found[key] = where.path;
      hows.add(where.how);
    }
    const topology = parseHpccTopology(readInputFile(found.topology, 'HPCC ns-3 topology file'), found.topology);
    const flows = parseHpccFlows(readInputFile(found.flow, 'HPCC ns-3 flow file'), found.flow, topology);
    const trace = parseHpccTrace(readInputFile(found.trace, 'HPCC ns-3 trace file'), found.trace, topology);
    const name = flags.name ?? `hpcc-ns3-${basename(dirname(config)).toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'import'}`;
    const result = hpccToPod({ config: cfg, topology, flows, trace, name, resolvedFrom: `found ${[...hows].join(' and ')}` });
    for (const w of result.warnings) process.stderr.write(`rocelab import: warning: ${w.file}${w.line > 0 ? `:${w.line}` : ''}: ${w.message}\n`);
    if (flags.out === null) {
      process.stdout.write(result.yaml);
    } else {
      writeFileSync(flags.out, result.yaml);
      process.stderr.write(`rocelab import: wrote ${flags.out}: ${topology.nodeCount} nodes, ${topology.links.length} links, ${flows.flows.length} flows (files found ${[...hows].join(' and ')}: ${Object.values(found).map((p) => relative('.', p)).join(', ')})\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof ImportError || err instanceof InputFileError) {
      process.stderr.write(`rocelab import: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
