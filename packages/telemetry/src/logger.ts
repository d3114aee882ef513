/**
 * Logs: pino JSON on stderr, one line per notable event (DESIGN §6), so stdout stays free for
 * the one JSON result line of `rocelab run --json`. Level from ROCELAB_LOG_LEVEL (default info).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(name: string, bindings: Record<string, unknown> = {}, level?: string): Logger {
  return pino(
    { name, level: level ?? process.env.ROCELAB_LOG_LEVEL ?? 'info', base: { pid: process.pid, ...bindings } },
    pino.destination({ dest: 2, sync: true }),
  );
}
