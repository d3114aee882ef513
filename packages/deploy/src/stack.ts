/**
 * The pod as a Docker Swarm stack file (`rocelab stack FILE [--workers K]`, issue 15), for
 * `docker stack deploy -c stack.yml NAME`. One overlay network; the controller; one service per
 * node, or per worker with `--workers K` (a worker's nodes run in its one container, so they
 * stay together wherever Swarm places it); Prometheus, and Grafana behind a replica count of 0
 * until asked for (offline it has no image). The pod token is a Docker secret, the topology and
 * Prometheus's configuration are Docker configs: nothing is bind-mounted, so any node of the
 * swarm can run any task. Every service resolves by DNS round robin (`endpoint_mode: dnsrr`):
 * members reach each other by name and need no virtual IP, which the IPVS mesh would put in
 * front of them. The controller and Prometheus publish their ports in host mode (the mesh
 * needs a virtual IP), on the node that runs them.
 */
import { basename, resolve } from 'node:path';
import { CONTAINER_CONTROLLER_PORT, CONTAINER_TOKEN_FILE, COMPOSE_IMAGES, DEV_TOKEN_FILE, RESERVED_SERVICES, reservedNodeNames, memberContainerEnv, planMembers, podContainerEnv, type MemberPlan, type PodSpec } from '@rocelab/topology';
import { stringify } from 'yaml';
import { describeFiles, filesBeside } from './files-beside.js';

export interface StackOptions {
  topologyFile: string;
  workers: number | null;
  /**
   * Swarm node hostnames (`--place-on`): member i runs on `placeOn[i mod n]`, the controller and
   * Prometheus on the first. Without it Swarm places every task where it likes.
   */
  placeOn?: readonly string[];
}

/** A topology a stack cannot carry: bad input, exit 2. */
export class StackError extends Error {}

const NETWORK = 'rocelab';
/** What `--place-on` accepts as a node hostname: nothing that could break out of a constraint. */
const HOSTNAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** The overlay's subnet (ROCELAB_SUBNET), which the containers also read to find their address on it. */
const SUBNET = '${ROCELAB_SUBNET:-10.213.0.0/16}';
const TOKEN_SECRET = basename(CONTAINER_TOKEN_FILE);
const TOPOLOGY_CONFIG = 'rocelab_topology';
const PROMETHEUS_CONFIG = 'rocelab_prometheus';
/** Grafana's provisioning and dashboards as configs: [config name, file in the repository, path in the container]. */
const GRAFANA_FILES: ReadonlyArray<readonly [string, string, string]> = [
  ['rocelab_grafana_datasource', 'deploy/grafana/provisioning/datasources/prometheus.yaml', '/etc/grafana/provisioning/datasources/prometheus.yaml'],
  ['rocelab_grafana_provider', 'deploy/grafana/provisioning/dashboards/rocelab.yaml', '/etc/grafana/provisioning/dashboards/rocelab.yaml'],
  ...['pause-storms', 'dcqcn', 'emulator'].map((d) => [`rocelab_dashboard_${d.replace('-', '_')}`, `deploy/grafana/dashboards/${d}.json`, `/var/lib/grafana/dashboards/${d}.json`] as const),
];

/** The stack file of `pod` (loaded from `options.topologyFile`), as YAML with a header saying how to use it. */
export function stackFile(pod: PodSpec, options: StackOptions): string {
  const clashes = reservedNodeNames(pod);
  if (clashes.length > 0) throw new StackError(`${options.topologyFile}: node names ${clashes.join(', ')}: expected names other than ${RESERVED_SERVICES.join(', ')} (the stack's own services)`);
  const refs = filesBeside(pod);
  if (refs.length > 0) throw new StackError(`${options.topologyFile}: expected a topology that refers to no other file (a Docker config holds it alone), got ${describeFiles(refs)}`);
  const topology = `/pod/${basename(options.topologyFile)}`;
  const members = planMembers(pod, options.workers);
  const placeOn = options.placeOn ?? [];
  const badHost = placeOn.find((h) => !HOSTNAME.test(h));
  if (badHost !== undefined) throw new StackError(`--place-on ${placeOn.join(',')}: ${JSON.stringify(badHost)}: expected Swarm node hostnames (letters, digits, '.', '-', '_'), comma-separated`);
  const pinned = (i: number) => (placeOn.length === 0 ? {} : { placement: { constraints: [`node.hostname == ${placeOn[i % placeOn.length]!}`] } });
  // A task has two networks (the overlay and docker_gwbridge): the subnet says which is the pod's.
  const env = { ...podContainerEnv(topology), ROCELAB_POD_SUBNET: SUBNET, ROCELAB_LOG_LEVEL: '${ROCELAB_LOG_LEVEL:-info}' };
  // Fresh objects per service: shared ones would come out as YAML anchors and aliases.
  const common = () => ({
    image: `\${ROCELAB_IMAGE:-${COMPOSE_IMAGES.rocelab}}`,
    networks: [NETWORK],
    secrets: [TOKEN_SECRET],
    configs: [{ source: TOPOLOGY_CONFIG, target: topology }],
  });
  const deploy = (role: string, node?: string) => ({
    endpoint_mode: 'dnsrr',
    // A member that crashes starts again and rejoins; one that ends with the run (exit 0) does not.
    restart_policy: { condition: 'on-failure', max_attempts: 5 },
    labels: { 'io.rocelab.pod': pod.name, 'io.rocelab.role': role, ...(node === undefined ? {} : { 'io.rocelab.node': node }) },
  });
  const services: Record<string, unknown> = {
    controller: {
      ...common(),
      // All interfaces: a port published in host mode arrives through docker_gwbridge, not the overlay.
      environment: { ...env, ROCELAB_ROLE: 'controller', ROCELAB_CONTROLLER_HOST: '0.0.0.0', ROCELAB_DILATION: '${ROCELAB_DILATION:-10000}', ROCELAB_DURATION: '${ROCELAB_DURATION:-}', ROCELAB_SEED: '${ROCELAB_SEED:-}' },
      ports: [{ target: CONTAINER_CONTROLLER_PORT, published: `\${CONTROLLER_PORT:-${CONTAINER_CONTROLLER_PORT}}`, mode: 'host' }],
      deploy: { ...deploy('controller'), ...pinned(0) },
    },
  };
  members.forEach((m, i) => {
    services[m.id] = { ...common(), environment: { ...env, ...memberContainerEnv(m) }, deploy: { ...deploy(roleOf(pod, m), m.entry === 'worker' ? undefined : m.nodes[0]), ...pinned(i) } };
  });
  services.prometheus = {
    image: `\${PROMETHEUS_IMAGE:-${COMPOSE_IMAGES.prometheus}}`,
    command: ['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.path=/prometheus'],
    networks: [NETWORK],
    configs: [{ source: PROMETHEUS_CONFIG, target: '/etc/prometheus/prometheus.yml' }],
    ports: [{ target: 9090, published: '${PROMETHEUS_PORT:-9090}', mode: 'host' }],
    deploy: { ...deploy('prometheus'), restart_policy: { condition: 'any' }, ...pinned(0) },
  };
  services.grafana = {
    image: `\${GRAFANA_IMAGE:-${COMPOSE_IMAGES.grafana}}`,
    networks: [NETWORK],
    environment: { GF_AUTH_ANONYMOUS_ENABLED: 'true', GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer', GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH: '/var/lib/grafana/dashboards/pause-storms.json' },
    configs: GRAFANA_FILES.map(([name, , target]) => ({ source: name, target })),
    ports: [{ target: 3000, published: '${GRAFANA_PORT:-3000}', mode: 'host' }],
    // Offline there is no Grafana image to pull: 0 replicas unless GRAFANA_REPLICAS=1.
    deploy: { ...deploy('grafana'), replicas: '${GRAFANA_REPLICAS:-0}', restart_policy: { condition: 'any' } },
  };
  const doc = {
    version: '3.8',
    services,
    networks: { [NETWORK]: { driver: 'overlay', attachable: true, ipam: { config: [{ subnet: SUBNET }] } } },
    secrets: { [TOKEN_SECRET]: { file: `\${ROCELAB_POD_TOKEN_FILE:-${DEV_TOKEN_FILE}}` } },
    configs: {
      [TOPOLOGY_CONFIG]: { file: resolve(options.topologyFile) },
      [PROMETHEUS_CONFIG]: { file: '${ROCELAB_REPO:-.}/deploy/prometheus/prometheus.yml' },
      ...Object.fromEntries(GRAFANA_FILES.map(([name, file]) => [name, { file: `\${ROCELAB_REPO:-.}/${file}` }])),
    },
  };
  const hosts = pod.nodes.filter((n) => n.role === 'host').length;
  const header = [
    `# Generated by \`rocelab stack ${options.topologyFile}${options.workers === null ? '' : ` --workers ${options.workers}`}${placeOn.length === 0 ? '' : ` --place-on ${placeOn.join(',')}`}\`; regenerate rather than edit.`,
    `# Pod ${JSON.stringify(pod.name)}: ${hosts} hosts and ${pod.nodes.length - hosts} switches in ${members.length} services${options.workers === null ? ' (one per node)' : ` (${members.length} workers)`}, the controller and Prometheus`,
    '# on an overlay network; Grafana with GRAFANA_REPLICAS=1. Write it in the repository (paths are relative to its\n# directory), or set ROCELAB_REPO to the repository:',
    '#',
    '#   docker swarm init                                 # once: a one-node swarm is real Swarm mode',
    '#   docker stack deploy --resolve-image never -c stack.yml rocelab',
    '#   docker service logs -f rocelab_controller         # the result, one JSON line, when ROCELAB_DURATION ends',
    '#   docker stack rm rocelab',
    '#',
    '# Environment (read by docker stack deploy): ROCELAB_IMAGE (on every swarm node, or in a registry),',
    '# ROCELAB_REPO (where deploy/ is: Prometheus\'s and Grafana\'s configs), PROMETHEUS_IMAGE, GRAFANA_IMAGE,',
    '# GRAFANA_REPLICAS, ROCELAB_DILATION, ROCELAB_DURATION, ROCELAB_SEED,',
    '# ROCELAB_SUBNET (the overlay, default 10.213.0.0/16), CONTROLLER_PORT, PROMETHEUS_PORT, GRAFANA_PORT (published in host mode on the node running the',
    `# service), ROCELAB_POD_TOKEN_FILE (default ${DEV_TOKEN_FILE}, the development token): it becomes the`,
    '# Docker secret every container reads, never an environment variable.',
  ];
  return `${header.join('\n')}\n${stringify(doc, { lineWidth: 0 })}`;
}

/** A member's role label: a worker's is `worker`, a node's its role. */
function roleOf(pod: PodSpec, m: MemberPlan): string {
  return m.entry === 'worker' ? 'worker' : pod.nodes.find((n) => n.name === m.nodes[0])!.role;
}
