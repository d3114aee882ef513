/**
 * @rocelab/topology — the topology file (DESIGN §8): YAML with a JSON Schema that other
 * packages extend, validation that names file, path and expectation for every problem, and
 * resolution into a `PodSpec` (numbered nodes and ports, base units, defaults applied), plus
 * static ECMP routes over it.
 *
 * ```ts
 * const pod = loadTopologyFile('test/fixtures/tree.yaml');
 * const routes = routeTables(pod)[pod.nodes.find((n) => n.name === 'sw1')!.index];
 * ```
 */
export type * from './pod.js';
export { ROOT, TopologyError, childPath, describeValue, formatProblem, type Problem, type ProblemCode } from './errors.js';
export { BUILTIN_EXTENSIONS } from './builtin.js';
export { CLOS_LIMITS, ClosError, closNames, closProblems, generateClos, type ClosOptions, type ClosShape } from './clos.js';
export { LIVE_DILATION, COMPOSE_IMAGES, ComposeError, DEV_TOKEN_FILE, RESERVED_SERVICES, composeFile, reservedNodeNames, type ComposeOptions } from './compose.js';
export { CONTAINER_CONTROLLER_PORT, CONTAINER_METRICS_PORT, CONTAINER_TOKEN_FILE, CONTAINER_UID, memberContainerEnv, podContainerEnv } from './container-env.js';
export { CdfError, cdfFilesFor, cdfPath, parseCdf, readCdfFile } from './cdf.js';
export { FLOW_KIND, WORKLOAD_KIND_TABLE, flowWorkloads, mergeExtensions, resolvedWorkloads, type ExtensionProblem, type PodCheck, type SchemaExtensions, type WorkloadKind } from './extensions.js';
export { SWITCH_EXTENSION, switchPortDirections, switchSettingsOf } from './switch-extension.js';
export { NIC_EXTENSION, nicSettingsOf } from './nic-extension.js';
export { HOST_EXTENSION, hostCpuOf, type HostCpuSettings } from './host-extension.js';
export { formatIpv4, inSubnet, parseIpv4, parseSubnet, prefixMask } from './ipv4.js';
export { loadTopologyFile, parseTopology, parseYaml, topologyFromData } from './load.js';
export { APP_MEMORY_MAX, APP_MEMORY_MIN, APP_REGIONS_MAX, declareAppRegions } from './apps.js';
export { DEFAULT_PROGRAM_TIMEOUT_MS, PROGRAM_TIMEOUT_MAX_MS, PROGRAM_TIMEOUT_MIN_MS, expandNames, isProgramPath, type PodNames, type Unexpanded } from './programs.js';
export { InputFileError, MAX_INPUT_FILE_BYTES, MAX_TRACE_FILE_BYTES, checkInputFile, readInputFile } from './input-file.js';
export { MAC_BASE } from './nodes.js';
export { NO_IMPAIRMENTS } from './links.js';
export { routeTable, routeTables, type Route } from './routes.js';
export { partitionPod } from './partition.js';
export { planMembers, type MemberEntry, type MemberPlan } from './members.js';
export { DEFAULT_SEED, LINK_DEFAULTS, PROFILES, ROLES, TIMINGS, createTopologySchema, type RawTopology } from './schema.js';
export { FAULT_KINDS, FAULT_KIND_NAMES, faultItemSchema, resolveFault } from './fault-kinds.js';
export type { JsonSchema } from './schema-atoms.js';
export { faultContext } from './references.js';
export { nodeLives, restartGaps, type LifeClear, type LifeFault, type LifeProblem, type NodeLife } from './node-lives.js';
export { Problems } from './errors.js';
export { EXPECT, UNITS, UnitError, formatDuration, parseBytes, parseDuration, parseProbability, parseRate } from './units.js';
export { PRECOMPILED_SCHEMAS, schemaValidator, validateSchema, validateWith, type SchemaValidator } from './validate.js';
export { HPCC_CONFIG_KEYS, ImportError, hpccInputNames, parseHpccConfig, parseNs3Rate, parseNs3Time, type HpccConfig, type ImportWarning } from './import-hpcc.js';
export { HPCC_DPORT, HPCC_FIRST_SPORT, parseHpccFlows, parseHpccTopology, parseHpccTrace, type HpccFlow, type HpccFlows, type HpccLink, type HpccTopology, type HpccTrace } from './import-hpcc-files.js';
export { hpccToPod, type HpccImport, type HpccImportInput } from './import-hpcc-pod.js';
export { durationText, hpccHostIp, rateText } from './import-hpcc-graph.js';
