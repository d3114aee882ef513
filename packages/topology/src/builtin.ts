/**
 * What every pod understands: the core file plus each mechanism package's contribution.
 */
import { FLOW_KIND, mergeExtensions, type SchemaExtensions } from './extensions.js';
import { SWITCH_EXTENSION } from './switch-extension.js';

export const BUILTIN_EXTENSIONS: SchemaExtensions = Object.freeze(mergeExtensions({ workloads: { flow: FLOW_KIND } }, SWITCH_EXTENSION));
