/**
 * What runs at a pod's node, as the runtime reads it: a host (with its app, if it runs one), a
 * switch, or a test's own model, told apart by `kind`. The models say their result and fault
 * types (`NodeModel`), so reports, metrics and traces read them without casts.
 */
import type { Host } from '@rocelab/host';
import type { Engine, OpaqueModel } from '@rocelab/sim';
import type { Switch } from '@rocelab/switch';
import type { AppHost } from './app-host.js';
import type { ProgramHost } from './program-host.js';

export type PodModel = Host<AppHost | ProgramHost> | Switch | OpaqueModel;

export type PodEngine = Engine<PodModel>;
