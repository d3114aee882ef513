/**
 * `rocelab run --mode docker`: the pod as containers of the rocelab image on a private bridge
 * network, through the Docker Engine API (dockerode). The controller container runs the pod
 * for the duration and prints the result; members reach each other by their node names
 * (network aliases). Whatever happens — a failed member, Ctrl-C, an error — every container
 * and the network are removed before this returns.
 *
 * The topology's directory is bind-mounted, so the engine must see this machine's files (a
 * local daemon).
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { CONTAINER_CONTROLLER_PORT, memberContainerEnv, type MemberPlan, type PodSpec } from '@rocelab/topology';
import { CONTAINER_POD_TOKEN_FILE, NO_RECORDING, recordingToEnv, type FaultLogEntry, type RecordingOptions, type RunResult } from '@rocelab/runtime';
import { DockerRunError, DockerRunFailure } from './docker-errors.js';
import { writeTokenFile } from './token-file.js';

export interface DockerRunOptions {
  image: string;
  seed: number;
  durationPs: number;
  dilation: number;
  /**
   * Called once the controller container runs, with the URL of its /status (the CLI draws a
   * progress bar from it); what it returns is called when the controller ends.
   */
  watchStatus?: (statusUrl: string) => () => void;
  /** Traces and captures: their directories are bind-mounted into every member. */
  recording?: RecordingOptions;
  /** Every node's report in the result (drills). */
  resultDetail?: boolean;
  /** A fault log's live faults to apply again. */
  replayFaults?: readonly FaultLogEntry[];
  /** Start a member's container again when it dies mid-run (`docker kill`, OOM); it rejoins with fresh state. */
  respawn?: boolean;
}

export { DockerRunError, DockerRunFailure };

/** A moment's pause before a dead member's container starts again, as a rebooting box takes one. */
const RESPAWN_DELAY_MS = 500;

/** Label on everything a docker run creates, valued with its run id: cleanup finds them by it. */
export const RUN_LABEL = 'io.rocelab.run';

/** Where the trace and capture directories appear inside the containers. */
const CONTAINER_TRACE_DIR = '/trace';
const CONTAINER_PCAP_DIR = '/pcap';

/** Wall-clock limit for a whole docker run, start-up included: a pod that hangs is removed. */
const RUN_TIMEOUT_MS = 30 * 60_000;

export async function runDockerPod(pod: PodSpec, file: string, plans: readonly MemberPlan[], options: DockerRunOptions): Promise<RunResult> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (err) {
    throw new DockerRunError(`no Docker engine reachable (${err instanceof Error ? err.message : String(err)}): start dockerd, or set DOCKER_HOST`);
  }
  try {
    await docker.getImage(options.image).inspect();
  } catch {
    throw new DockerRunError(`image ${options.image} not found: build it with \`npm run image\` (or pass --image)`);
  }
  const path = resolve(file);
  checkReadableByContainers(path);
  const runId = `${pod.name}-${randomBytes(4).toString('hex')}`;
  const labels = { [RUN_LABEL]: runId, 'io.rocelab.pod': pod.name };
  const token = randomBytes(24).toString('hex');
  // A file, read-only in every container, rather than an environment variable `docker inspect` shows.
  const tokenFile = writeTokenFile(token, { forContainer: true });
  const recording = options.recording ?? NO_RECORDING;
  const binds = [`${dirname(path)}:/pod:ro`, `${tokenFile.path}:${CONTAINER_POD_TOKEN_FILE}:ro`];
  if (recording.trace !== null) binds.push(`${resolve(recording.trace.dir)}:${CONTAINER_TRACE_DIR}`);
  if (recording.pcap !== null) binds.push(`${resolve(recording.pcap.dir)}:${CONTAINER_PCAP_DIR}`);
  const recordingEnv = recordingToEnv(recording, { trace: CONTAINER_TRACE_DIR, pcap: CONTAINER_PCAP_DIR });
  const common = {
    Image: options.image,
    Labels: labels,
    HostConfig: { Binds: binds, NetworkMode: runId, AutoRemove: false },
  };
  const env = (extra: Record<string, string>): string[] =>
    Object.entries({
      ROCELAB_TOPOLOGY: `/pod/${basename(path)}`,
      ROCELAB_POD_TOKEN_FILE: CONTAINER_POD_TOKEN_FILE,
      ROCELAB_LOG_LEVEL: process.env.ROCELAB_LOG_LEVEL ?? 'warn',
      // The hang timeout the user set applies inside the containers too (liveness.ts).
      ...(process.env.ROCELAB_HANG_TIMEOUT_MS ? { ROCELAB_HANG_TIMEOUT_MS: process.env.ROCELAB_HANG_TIMEOUT_MS } : {}),
      // Native programs cannot be sandboxed inside a container (no user namespaces under Docker's
      // seccomp profile): the user's explicit opt-out is what lets them run there (SANDBOX in native-programs.md).
      ...(process.env.ROCELAB_PROGRAMS_UNSANDBOXED === '1' ? { ROCELAB_PROGRAMS_UNSANDBOXED: '1' } : {}),
      ...extra,
    }).map(([k, v]) => `${k}=${v}`);
  const aliases = (names: string[]) => ({ EndpointsConfig: { [runId]: { Aliases: names } } });

  const network = await docker.createNetwork({ Name: runId, Driver: 'bridge', Labels: labels });
  const interrupted = new Promise<never>((_, reject) => {
    process.once('SIGINT', () => reject(new DockerRunFailure('interrupted: removing the containers')));
  });
  interrupted.catch(() => undefined);
  try {
    const controller = await docker.createContainer({
      ...common,
      name: `${runId}-controller`,
      Env: env({
        ROCELAB_ROLE: 'controller',
        ROCELAB_DURATION: `${options.durationPs}ps`,
        ROCELAB_SEED: String(options.seed),
        ROCELAB_DILATION: String(options.dilation),
        ...(options.resultDetail === true ? { ROCELAB_RESULT_DETAIL: '1' } : {}),
        ...(options.replayFaults !== undefined && options.replayFaults.length > 0 ? { ROCELAB_REPLAY_FAULTS: JSON.stringify(options.replayFaults) } : {}),
      }),
      NetworkingConfig: aliases(['controller']),
    });
    const stdout = collect();
    const stream = await controller.attach({ stream: true, stdout: true, stderr: true });
    controller.modem.demuxStream(stream, stdout.sink, process.stderr);
    await controller.start();
    let stopProgress = (): void => undefined;
    if (options.watchStatus !== undefined) {
      const info = await controller.inspect();
      const ip = info.NetworkSettings.Networks[runId]?.IPAddress;
      if (ip) stopProgress = options.watchStatus(`http://${ip}:${CONTAINER_CONTROLLER_PORT}/status`);
    }
    let running = true;
    for (const plan of plans) {
      const member = await docker.createContainer({
        ...common,
        name: `${runId}-${plan.id}`,
        Env: env({ ...memberContainerEnv(plan), ROCELAB_METRICS_HOST: 'off', ...recordingEnv }),
        NetworkingConfig: aliases([plan.id]),
      });
      await member.start();
      // The controller carries on without a member whose container dies; with respawn it starts again and rejoins.
      const watch = (): void =>
        void member.wait().then(async (exit: { StatusCode: number }) => {
          if (!running || exit.StatusCode === 0) return;
          process.stderr.write(`rocelab: member ${plan.id} container exited (${exit.StatusCode}); the pod carries on without it${options.respawn === true ? ', and it is started again to rejoin' : ''}\n`);
          if (options.respawn !== true) return;
          await new Promise((r) => setTimeout(r, RESPAWN_DELAY_MS));
          if (!running) return;
          await member.start().then(watch, () => undefined);
        }, () => undefined);
      watch();
    }
    const deadline = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new DockerRunFailure(`the pod did not finish within ${RUN_TIMEOUT_MS / 1000} s of wall time`)), RUN_TIMEOUT_MS).unref();
    });
    const exit = (await Promise.race([controller.wait(), interrupted, deadline]).finally(() => {
      running = false;
      stopProgress();
    })) as { StatusCode: number };
    const line = stdout
      .text()
      .split('\n')
      .reverse()
      .find((l) => l.startsWith('{'));
    if (line === undefined) throw new DockerRunFailure(`the controller container exited with ${exit.StatusCode} without a result (its log is above)`);
    return JSON.parse(line) as RunResult;
  } finally {
    await removeRun(docker, runId);
    await network.remove().catch(() => undefined);
    tokenFile.remove();
  }
}

/** Removes every container of a run (by label), running or not. */
async function removeRun(docker: Docker, runId: string): Promise<void> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } });
  await Promise.all(containers.map((c) => docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
}

/**
 * The containers run as an unprivileged user (uid 10001) and read the bind-mounted topology
 * as "others": say so before starting anything rather than let every container fail.
 */
function checkReadableByContainers(file: string): void {
  const needs: Array<[string, number, string]> = [
    [dirname(file), 0o005, 'readable and searchable (chmod o+rx)'],
    [file, 0o004, 'readable (chmod o+r)'],
  ];
  for (const [path, bits, what] of needs) {
    const mode = statSync(path).mode;
    if ((mode & bits) !== bits) {
      throw new DockerRunError(`${path} (mode ${(mode & 0o777).toString(8)}) must be ${what} by others: the containers run as uid 10001 and mount it read-only`);
    }
  }
}

function collect(): { sink: PassThrough; text: () => string } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  return { sink, text: () => Buffer.concat(chunks).toString('utf8') };
}
