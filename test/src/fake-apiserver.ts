/**
 * A Kubernetes API server's small part that `rocelab run --mode k8s` uses, over plain HTTP on
 * loopback, for testing the run's sequence where no cluster can run: `/version`, discovery of
 * the core group, creating namespaces and namespaced objects (409 on a clash), listing pods,
 * a pod's log, deleting a namespace. Pods do not run: the test says what their status is and
 * what the controller's log holds. Everything it was sent is kept, in order.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** What the fake's pods do: their status on each list, the controller's log. */
export interface FakeBehaviour {
  /** The status of a created pod the `poll`-th time the pods are listed (1-based). */
  podStatus(pod: FakeObject, poll: number): Record<string, unknown>;
  controllerLog: string;
}

const RESOURCES: Record<string, { kind: string; namespaced: boolean }> = {
  namespaces: { kind: 'Namespace', namespaced: false },
  secrets: { kind: 'Secret', namespaced: true },
  configmaps: { kind: 'ConfigMap', namespaced: true },
  services: { kind: 'Service', namespaced: true },
  pods: { kind: 'Pod', namespaced: true },
};

export class FakeApiServer {
  /** Every object created, in order; namespaces that exist; namespaces deleted. */
  readonly created: FakeObject[] = [];
  readonly namespaces = new Set<string>();
  readonly deleted: string[] = [];
  polls = 0;
  /** Called on every pod list (a test may interrupt the run from here). */
  onPoll: (poll: number) => void = () => undefined;
  private readonly server: Server;

  constructor(private readonly behaviour: FakeBehaviour) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const parts = url.pathname.split('/').filter(Boolean);
    const body = await new Promise<string>((resolve) => {
      let text = '';
      req.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve(text));
    });
    const json = (code: number, value: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    const status = (code: number, reason: string, message: string) => json(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
    if (req.method === 'GET' && url.pathname === '/version') return json(200, { major: '1', minor: '30', gitVersion: 'v1.30.0-fake' });
    if (req.method === 'GET' && url.pathname === '/api/v1') {
      return json(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1', resources: Object.entries(RESOURCES).map(([name, r]) => ({ name, singularName: '', kind: r.kind, namespaced: r.namespaced, verbs: ['create', 'delete', 'get', 'list'] })) });
    }
    // /api/v1/namespaces[/NS[/RESOURCE[/NAME[/log]]]]
    if (parts[0] !== 'api' || parts[1] !== 'v1' || parts[2] !== 'namespaces') return status(404, 'NotFound', `no route ${req.method} ${url.pathname}`);
    const [ns, resource, name, sub] = parts.slice(3);
    if (req.method === 'POST' && ns === undefined) {
      const obj = JSON.parse(body) as FakeObject;
      if (this.namespaces.has(obj.metadata.name)) return status(409, 'AlreadyExists', `namespaces "${obj.metadata.name}" already exists`);
      this.namespaces.add(obj.metadata.name);
      this.created.push(obj);
      return json(201, obj);
    }
    if (ns === undefined) return status(405, 'MethodNotAllowed', 'only POST');
    if (!this.namespaces.has(ns)) return status(404, 'NotFound', `namespaces "${ns}" not found`);
    if (resource === undefined) {
      if (req.method === 'GET') return json(200, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      if (req.method === 'DELETE') {
        this.namespaces.delete(ns);
        this.deleted.push(ns);
        return json(200, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Terminating' } });
      }
    }
    const inNs = (kind: string) => this.created.filter((o) => o.kind === kind && o.metadata.namespace === ns);
    if (req.method === 'POST' && resource !== undefined && RESOURCES[resource]?.namespaced === true && name === undefined) {
      const obj = JSON.parse(body) as FakeObject;
      if (inNs(obj.kind).some((o) => o.metadata.name === obj.metadata.name)) return status(409, 'AlreadyExists', `${resource} "${obj.metadata.name}" already exists`);
      this.created.push(obj);
      return json(201, obj);
    }
    if (req.method === 'GET' && resource === 'pods' && name === undefined) {
      const poll = ++this.polls;
      this.onPoll(poll);
      return json(200, { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: inNs('Pod').map((p) => ({ ...p, status: this.behaviour.podStatus(p, poll) })) });
    }
    if (req.method === 'GET' && resource === 'pods' && sub === 'log') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(name === 'controller' ? this.behaviour.controllerLog : '');
      return;
    }
    return status(404, 'NotFound', `no route ${req.method} ${url.pathname}`);
  }
}

/** A kubeconfig for `server` (plain HTTP needs insecure-skip-tls-verify with client-node). */
export function kubeconfigFor(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: fake, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]`,
    'users: [{name: fake, user: {token: fake-token}}]',
    'contexts: [{name: fake, context: {cluster: fake, user: fake}}]',
    'current-context: fake',
    '',
  ].join('\n');
}
