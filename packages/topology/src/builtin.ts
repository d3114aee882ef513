/**
 * What every pod understands: the core file plus each mechanism package's contribution.
 */
import { WORKLOAD_KIND_TABLE, mergeExtensions, type SchemaExtensions } from './extensions.js';
import { HOST_EXTENSION } from './host-extension.js';
import { NIC_EXTENSION } from './nic-extension.js';
import { SWITCH_EXTENSION } from './switch-extension.js';

export const BUILTIN_EXTENSIONS: SchemaExtensions = Object.freeze(mergeExtensions({ workloads: WORKLOAD_KIND_TABLE }, SWITCH_EXTENSION, NIC_EXTENSION, HOST_EXTENSION));
