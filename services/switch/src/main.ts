#!/usr/bin/env node
/**
 * One ToR, leaf or spine (DESIGN §2): a member process hosting switch nodes, configured by
 * the environment (see @rocelab/runtime member-main).
 */
import { runMemberMain } from '@rocelab/runtime';

await runMemberMain('switch');
