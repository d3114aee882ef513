/** The worker-thread program of `--threads K` when it runs from the modules (`threads.ts`). */
import { threadMain } from './thread-member.js';

void threadMain();
