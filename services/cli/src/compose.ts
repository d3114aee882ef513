/**
 * `rocelab compose FILE`: the compose file of a topology on stdout (see @rocelab/topology's
 * compose emitter); `rocelab container`: the entry point of the rocelab image.
 */
import { networkInterfaces } from 'node:os';
import { runControllerMain } from '@rocelab/controller';
import { containerSetup } from '@rocelab/deploy';
import { runMemberMain } from '@rocelab/runtime';
import { ComposeError, composeFile, loadTopologyFile } from '@rocelab/topology';

export function composeCommand(file: string): number {
  const pod = loadTopologyFile(file);
  try {
    process.stdout.write(composeFile(pod, { topologyFile: file }));
    return 0;
  } catch (err) {
    if (!(err instanceof ComposeError)) throw err;
    process.stderr.write(`rocelab compose: ${err.message}\n`);
    return 2;
  }
}

/** One container of a pod: the part ROCELAB_ROLE names, with a container's defaults (@rocelab/deploy's containerSetup). */
export async function containerCommand(): Promise<number> {
  const setup = containerSetup(process.env, networkInterfaces);
  if ('problem' in setup) {
    process.stderr.write(`rocelab container: ${setup.problem}\n`);
    return 2;
  }
  if (setup.role === 'controller') return runControllerMain();
  return runMemberMain(setup.role === 'member' ? 'any' : setup.role);
}
