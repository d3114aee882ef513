/**
 * `rocelab stack FILE [--workers K] [--place-on H1,H2,…]`: the pod as a Docker Swarm stack file on stdout
 * (@rocelab/deploy's stackFile).
 */
import { StackError, stackFile } from '@rocelab/deploy';
import { loadTopologyFile } from '@rocelab/topology';

export function stackCommand(file: string, options: { workers?: number; placeOn?: string }): number {
  try {
    process.stdout.write(stackFile(loadTopologyFile(file), { topologyFile: file, workers: options.workers ?? null, ...(options.placeOn === undefined ? {} : { placeOn: options.placeOn.split(',') }) }));
    return 0;
  } catch (err) {
    if (err instanceof StackError) {
      process.stderr.write(`rocelab stack: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
