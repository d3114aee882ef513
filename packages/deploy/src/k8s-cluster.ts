/**
 * The cluster of `rocelab run --mode k8s`: the kubeconfig (`--kubeconfig F`, else client-node's
 * default loading: KUBECONFIG, ~/.kube/config, the in-cluster service account, and failing all
 * three its fallback http://localhost:8080), API clients whose every request has a deadline,
 * and a `/version` probe that says what was tried when no cluster answers.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoreV1Api, createConfiguration, KubeConfig, KubernetesObjectApi, ServerConfiguration, VersionApi, type RequestContext, type ResponseContext } from '@kubernetes/client-node';
import { K8sRunError } from './k8s-errors.js';

/** The service account's token, which makes loadFromDefault load the in-cluster configuration. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
/** Every API request is abandoned after this long: a cluster that stops answering fails the run rather than hanging it. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The first request: a cluster that does not answer `/version` in this time is taken as absent. */
export const PROBE_TIMEOUT_MS = 5_000;

export interface Cluster {
  /** The API server's URL and the context that named it. */
  server: string;
  context: string;
  /** Where the configuration came from, in words (error messages). */
  source: string;
  /** The server's version (`/version`'s gitVersion). */
  version: string;
  objects: KubernetesObjectApi;
  core: CoreV1Api;
}

/** Where client-node's default loading finds a configuration, in the order it tries them. */
export function defaultKubeconfigSource(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.KUBECONFIG !== undefined && env.KUBECONFIG !== '') return `KUBECONFIG=${env.KUBECONFIG}`;
  const file = join(home, '.kube', 'config');
  if (existsSync(file)) return file;
  if (existsSync(SERVICE_ACCOUNT_TOKEN)) return 'the in-cluster service account';
  return 'no configuration (no --kubeconfig, no KUBECONFIG, no ~/.kube/config, not inside a cluster), hence client-node\'s fallback';
}

const HOW_TO_POINT = 'expected a kubeconfig whose current context reaches a cluster: pass --kubeconfig F, set KUBECONFIG, or create ~/.kube/config (`kind create cluster` and k3s write one; k3s: /etc/rancher/k3s/k3s.yaml)';

/** Loads the configuration and checks that its current context names a cluster. */
export function loadKubeConfig(file: string | null): { kc: KubeConfig; source: string } {
  const kc = new KubeConfig();
  const source = file === null ? defaultKubeconfigSource() : `--kubeconfig ${file}`;
  try {
    if (file === null) kc.loadFromDefault();
    else kc.loadFromFile(file);
  } catch (err) {
    throw new K8sRunError(`${source}: expected a readable kubeconfig (YAML with clusters, users and contexts), got ${errorText(err)}`);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    const contexts = kc.getContexts().map((c) => c.name);
    const current = kc.getCurrentContext() as string | undefined;
    throw new K8sRunError(`${source}: expected a current context that names a cluster, got ${current ? `context ${JSON.stringify(current)}` : 'no current context'}${contexts.length > 0 ? ` (contexts: ${contexts.join(', ')}; kubectl config use-context NAME)` : ''}`);
  }
  return { kc, source };
}

/** Loads the configuration, makes the clients and asks `/version`: a cluster that answers, or a K8sRunError saying what was tried. */
export async function connectCluster(file: string | null, probeTimeoutMs = PROBE_TIMEOUT_MS): Promise<Cluster> {
  const { kc, source } = loadKubeConfig(file);
  const server = kc.getCurrentCluster()!.server;
  const probe = createConfiguration({ baseServer: new ServerConfiguration(server, {}), authMethods: { default: kc }, promiseMiddleware: [deadline(probeTimeoutMs)] });
  let version: string;
  try {
    version = (await new VersionApi(probe).getCode()).gitVersion;
  } catch (err) {
    const why = err instanceof ApiException ? `HTTP ${err.code}: ${apiMessage(err)}` : isAbort(err) ? `no answer within ${probeTimeoutMs / 1000} s` : errorText(err);
    throw new K8sRunError(`no Kubernetes cluster reachable at ${server} (context ${JSON.stringify(kc.getCurrentContext())}, from ${source}): ${why}; ${HOW_TO_POINT}`);
  }
  const configuration = createConfiguration({ baseServer: new ServerConfiguration(server, {}), authMethods: { default: kc }, promiseMiddleware: [deadline(REQUEST_TIMEOUT_MS)] });
  return { server, context: kc.getCurrentContext(), source, version, objects: new KubernetesObjectApi(configuration), core: new CoreV1Api(configuration) };
}

/** A middleware that aborts each request after `ms`. */
function deadline(ms: number): { pre(context: RequestContext): Promise<RequestContext>; post(context: ResponseContext): Promise<ResponseContext> } {
  return {
    pre: async (context) => {
      context.setSignal(AbortSignal.timeout(ms));
      return context;
    },
    post: async (context) => context,
  };
}

/** The API server's words for a refusal (a Status object's message), else its body as text. */
export function apiMessage(err: ApiException<unknown>): string {
  const body = err.body as { message?: unknown } | string | null | undefined;
  if (typeof body === 'object' && body !== null && typeof body.message === 'string') return body.message;
  return typeof body === 'string' && body !== '' ? body : err.message.split('\n')[0]!;
}

export function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** An error's message, or its code (ENOENT) when that is all it says, on one line. */
export function errorText(err: unknown): string {
  if (err instanceof ApiException) return `HTTP ${err.code}: ${apiMessage(err)}`;
  if (isAbort(err)) return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : String(err);
  return (typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message).split('\n')[0]!;
}
