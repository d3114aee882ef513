/**
 * The decisions of `rocelab run --mode k8s` that need no cluster: the run's namespace, its
 * wall-clock deadline, what the pods' status says (ended, stuck on an image, why pending), and
 * the result on the controller's log. Pure, so tested without a cluster (k8s-run-plan.test.ts).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { RunResult } from '@rocelab/runtime';
import { isDns1123Label } from './dns-label.js';

const NAMESPACE_PREFIX = 'rocelab-run-';

/**
 * A namespace of its own for every run (`rocelab-run-POD-SUFFIX`, the pod name cut to fit 63
 * characters), so a run never touches anything else; null when the pod name makes no DNS-1123
 * label (then the user names one).
 */
export function runNamespace(podName: string, suffix: string): string | null {
  const room = 63 - NAMESPACE_PREFIX.length - suffix.length - 1;
  const cut = podName.slice(0, room).replace(/-+$/, '');
  const name = `${NAMESPACE_PREFIX}${cut}-${suffix}`;
  return cut !== '' && isDns1123Label(name) ? name : null;
}

/** Scheduling, pulling the image and the members dialling the controller (each retries for a minute). */
export const STARTUP_ALLOWANCE_MS = 5 * 60_000;
/**
 * Wall seconds per virtual second assumed when the run is not paced slower: one process per
 * node of the default pod takes ≈ 6,000 on two shared cores (docs/architecture/differences.md, per-window cost);
 * a cluster's network adds its round trips to every window, hence ×8 and more.
 */
export const SLOWEST_WALL_PER_VIRTUAL = 50_000;

/** How long a run may take, start-up included, before its pods are removed: bounded, and growing with the duration. */
export function runDeadlineMs(durationPs: number, dilation: number): number {
  return STARTUP_ALLOWANCE_MS + Math.ceil((durationPs / 1e12) * Math.max(dilation, SLOWEST_WALL_PER_VIRTUAL) * 1000);
}

/** A pod whose containers will not run again (restartPolicy Never, or done). */
export function hasEnded(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** How a pod's container ended, e.g. `exit 1 (Error)`, or its phase. */
export function endOf(pod: V1Pod): string {
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  if (terminated === undefined) return pod.status?.phase ?? 'no status';
  return `exit ${terminated.exitCode}${terminated.reason === undefined ? '' : ` (${terminated.reason})`}`;
}

/**
 * Waiting reasons that mean the image will not come: the kubelet has failed to pull it and backs
 * off, may not pull it, or cannot parse its name. (ErrImagePull alone is the first attempt's
 * failure, which a retry may still cure.)
 */
const IMAGE_FAILURES = new Set(['ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName']);

/** The first pod that cannot get its image, with the kubelet's words; null when none. */
export function imageProblem(pods: readonly V1Pod[]): { pod: string; reason: string; message: string } | null {
  for (const pod of pods) {
    for (const status of pod.status?.containerStatuses ?? []) {
      const waiting = status.state?.waiting;
      if (waiting?.reason !== undefined && IMAGE_FAILURES.has(waiting.reason)) return { pod: pod.metadata?.name ?? '?', reason: waiting.reason, message: waiting.message ?? '' };
    }
  }
  return null;
}

/** One pod's state in words: `tor1 Pending (Unschedulable: 0/1 nodes are available: …)`, `h1 Running`. */
export function podState(pod: V1Pod): string {
  const name = pod.metadata?.name ?? '?';
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
  if (waiting?.reason !== undefined) return `${name} ${pod.status?.phase ?? ''} (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''})`;
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled !== undefined) return `${name} ${pod.status?.phase ?? 'Pending'} (${unscheduled.reason ?? 'not scheduled'}${unscheduled.message ? `: ${unscheduled.message}` : ''})`;
  return hasEnded(pod) ? `${name} ${pod.status!.phase} (${endOf(pod)})` : `${name} ${pod.status?.phase ?? 'no status'}`;
}

/** The states of the pods that are not simply running, the controller first, at most `max`. */
export function podStates(pods: readonly V1Pod[], max = 8): string {
  const notRunning = pods.filter((p) => p.status?.phase !== 'Running' || p.metadata?.name === 'controller').sort((a, b) => Number(b.metadata?.name === 'controller') - Number(a.metadata?.name === 'controller'));
  if (notRunning.length === 0) return `all ${pods.length} running`;
  const shown = notRunning.slice(0, max).map(podState);
  return `${shown.join('; ')}${notRunning.length > max ? `; and ${notRunning.length - max} more not running` : ''}`;
}

/**
 * The run's result on the controller's log, and the other lines. A pod's log mixes its stdout
 * and stderr, and the controller's stderr is pino JSON: the result is the last line that starts
 * with `{` and parses as a result (it has a trace hash), not merely the last such line.
 */
export function resultFromLog(text: string): { result: RunResult | null; rest: string[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith('{')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(lines[i]!);
    } catch {
      continue;
    }
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { traceHash?: unknown }).traceHash === 'string') {
      return { result: parsed as RunResult, rest: [...lines.slice(0, i), ...lines.slice(i + 1)] };
    }
  }
  return { result: null, rest: lines };
}

/** The last `n` lines of a log, indented, for an error message. */
export function logTail(lines: readonly string[], n = 20): string {
  if (lines.length === 0) return '  (its log is empty)';
  return lines.slice(-n).map((l) => `  ${l}`).join('\n');
}
