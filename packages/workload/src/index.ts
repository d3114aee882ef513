/**
 * @rocelab/workload — traffic generators (pure): the workload kinds of the topology file
 * (`flow`, `incast`, `permutation`, `shuffle`, `poisson`, `pingmesh`), their schemas and
 * resolution, and `hostTraffic`, the time-ordered stream of messages a host's NIC posts.
 *
 * ```ts
 * const traffic = hostTraffic('h1', workloads, { hosts, seed, linkRateBps, rng: (p) => ctx.rng(p) });
 * for (let post = traffic.next(); post !== null; post = traffic.next()) nic.post(post);
 * ```
 *
 * Each kind is two files: `<kind>-schema.ts` (its item in the file, resolved with base units)
 * and `<kind>.ts` (its traffic at one host). Flow ids and connection keys: flow-id.ts.
 */
export * from './fields.js';
export * from './flow-spec.js';
export * from './flow-schema.js';
export * from './time-choice.js';
export * from './flow-id.js';
export * from './host-set.js';
export * from './size-cdf.js';
export * from './derangement.js';
export * from './incast-schema.js';
export * from './permutation-schema.js';
export * from './shuffle-schema.js';
export * from './poisson-schema.js';
export * from './pingmesh-schema.js';
export * from './workloads.js';
export * from './traffic.js';
export { incastSenders } from './incast.js';
export { permutationOf } from './permutation.js';
export { exponentialPs, meanGapPs } from './poisson.js';
export { hostTraffic } from './host-traffic.js';
export * from './transport.js';
