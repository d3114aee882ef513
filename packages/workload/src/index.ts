/**
 * @rocelab/workload — traffic generators (pure): workload kinds, their schemas and resolution.
 *
 * Each kind is a `FlowWorkload`-like spec (the resolved form), a JSON Schema for its item in the
 * topology file's `workloads` list, and a resolver from the validated item to the spec.
 */
export * from './flow-spec.js';
export * from './flow-schema.js';
