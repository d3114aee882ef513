/**
 * A stderr logger for the `Connection`s the link benchmark opens. `Connection` wants a pino
 * Logger (from @rocelab/telemetry), but the bench package does not depend on telemetry or
 * pino, so this stands in: it prints warnings and errors as one JSON line each on stderr,
 * like pino would, and drops the chatter.
 */
import type { Connection } from '@rocelab/runtime';

/** The logger type `Connection` takes, named without importing @rocelab/telemetry. */
export type ConnectionLog = Parameters<typeof Connection.connect>[3];

export function stderrLog(name: string): ConnectionLog {
  const quiet = (): void => undefined;
  const loud =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      const fields = typeof obj === 'string' ? { msg: obj } : { ...(obj as object), msg };
      process.stderr.write(`${JSON.stringify({ level, name, pid: process.pid, ...fields })}\n`);
    };
  const log = { trace: quiet, debug: quiet, info: quiet, warn: loud('warn'), error: loud('error'), fatal: loud('fatal'), child: () => log };
  // Only the methods above are ever called on a Connection's logger.
  return log as unknown as ConnectionLog;
}
