/**
 * `rocelab stack FILE [--workers K]`: the pod as a Docker Swarm stack file on stdout
 * (@rocelab/deploy's stackFile).
 */
import { StackError, stackFile } from '@rocelab/deploy';
import { loadTopologyFile } from '@rocelab/topology';

export function stackCommand(file: string, options: { workers?: number }): number {
  try {
    process.stdout.write(stackFile(loadTopologyFile(file), { topologyFile: file, workers: options.workers ?? null }));
    return 0;
  } catch (err) {
    if (err instanceof StackError) {
      process.stderr.write(`rocelab stack: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
