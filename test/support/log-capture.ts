import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/observability/logger.ts';

export interface LogEntry {
  level: number;
  msg: string;
  reqId?: string;
  err?: { message?: string; stack?: string };
  [field: string]: unknown;
}

export interface CapturedLog {
  log: Logger;
  /** Every line written so far, parsed. */
  entries(): LogEntry[];
}

/** A real pino logger (the service's own) writing into memory, so a test can read what was logged. */
export function captureLog(level = 'info'): CapturedLog {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { log: createLogger(level, destination), entries: () => lines.map((line) => JSON.parse(line) as LogEntry) };
}

/** pino's numeric level for `error`. */
export const ERROR_LEVEL = 50;
