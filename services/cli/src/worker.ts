#!/usr/bin/env node
/**
 * A worker of `--workers K`: a member process hosting several nodes of any role, configured by
 * the environment like the switch and host services (see @rocelab/runtime member-main).
 * `rocelab member` does the same through the CLI; this entry loads only what a member needs.
 */
import { runMemberMain } from '@rocelab/runtime';

await runMemberMain('any');
