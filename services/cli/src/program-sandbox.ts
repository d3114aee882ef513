/**
 * Before a pod with native programs starts on this machine (`run`, `up` in inproc or procs mode):
 * refuse when they cannot be sandboxed (bwrap missing, or no user namespaces here) rather than
 * find out from every member, and warn once when the user chose to run them unsandboxed
 * (docs/native-programs.md, "What a program can reach"). Docker and Kubernetes members check for themselves.
 */
import { programSandbox, sandboxRefusal, UNSANDBOXED_WARNING } from '@rocelab/runtime';
import type { PodSpec } from '@rocelab/topology';

/** The refusal to print (exit 2), or null to go on; the warning is printed here. */
export function programSandboxRefusal(pod: PodSpec, mode: string, command: string): string | null {
  if (pod.programs.length === 0 || (mode !== 'inproc' && mode !== 'procs')) return null;
  const sandbox = programSandbox();
  if (sandbox.kind === 'unavailable') return `${command}: ${sandboxRefusal(sandbox.why)}`;
  if (sandbox.kind === 'none') process.stderr.write(`${command}: warning: ${UNSANDBOXED_WARNING}\n`);
  return null;
}
