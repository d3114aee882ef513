#!/usr/bin/env node
/**
 * The controller service's process entry; see controller-main.ts for its environment.
 */
import { runControllerMain } from './controller-main.js';

await runControllerMain();
