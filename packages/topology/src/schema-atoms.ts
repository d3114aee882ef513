/**
 * The small schemas the topology file and the fault table share (units, names, endpoints), in a
 * module of their own so both can use them at load time, and the type of a schema itself.
 */
import { EXPECT } from './units.js';

/** A JSON Schema object (draft-07). A `description` doubles as the expectation in error messages. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export function object(description: string, properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', description, additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

export const duration = { type: 'string', description: EXPECT.duration };
export const rate = { type: ['integer', 'string'], description: EXPECT.rate };
export const probability = { type: ['number', 'string'], description: EXPECT.probability };
export const mtu = { type: 'integer', minimum: 256, maximum: 9000, description: 'an MTU (largest RDMA payload of one packet) in bytes, an integer 256..9000' };
/** Node names double as DNS and compose service names: lowercase letters, digits and '-'. */
export const NODE_NAME_PATTERN = '^[a-z][a-z0-9-]*$';
export const nodeName = {
  type: 'string',
  pattern: NODE_NAME_PATTERN,
  maxLength: 63,
  description: "a node name: lowercase letters, digits and '-', starting with a letter, at most 63 characters",
};
export const endpoint = {
  type: 'string',
  pattern: '^[a-z][a-z0-9-]*:[A-Za-z0-9][A-Za-z0-9_./-]*$',
  description: 'an endpoint node:port like tor1:p1',
};
