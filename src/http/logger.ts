import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON lines on stdout; one per request plus start-up and failures. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'lab-api' }, timestamp: pino.stdTimeFunctions.isoTime });
}
