/**
 * Completions enter the node's trace hash (`NodeContext.completed`): they are what an application
 * observes of the fabric, so a change that alters one must change the run's hash.
 */
import type { NodeContext } from '@rocelab/sim';
import type { Completion, CompletionStatus } from './rc-requester.js';

const STATUS_CODE: Readonly<Record<CompletionStatus, number>> = {
  success: 0,
  retryExceeded: 1,
  rnrRetryExceeded: 2,
  remoteInvalidRequest: 3,
  remoteAccessError: 4,
  remoteOperationalError: 5,
  flushed: 6,
};

export function traceCompletions(ctx: NodeContext, qpn: number, done: readonly Completion[]): void {
  for (const c of done) ctx.completed(qpn, c.wrId, c.sizeBytes, STATUS_CODE[c.status]);
}
