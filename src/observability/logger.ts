import type { DestinationStream } from 'pino';
import { pino, type Logger } from 'pino';
import { isoTimestampOf } from '../lib/iso-timestamp.ts';

export type { Logger };

/** Where a failed query's values appear: Drizzle's message ("…\nparams: a,b") and fields. */
const PARAMETERS_IN_MESSAGE = /\nparams: [^]*$/;
const PARAMETER_FIELDS = ['params', 'parameters', 'args', 'detail'];
/** PostgreSQL quotes the value it rejects ("invalid input syntax for type integer: \"…\""). */
const QUOTED = /"[^"]*"/g;

/** Every line's bindings: pino writes them after the time, in this order. */
const BASE = { service: 'lab-api' };
/** `,"service":"lab-api"`: the bindings as they stand in a line. */
const BINDINGS = `,${JSON.stringify(BASE).slice(1, -1)}`;

/** Where each logger made here writes, given by its maker: the request line goes there straight. */
const requestLineDestinations = new WeakMap<Logger, DestinationStream>();

type SerializedError = Record<string, unknown> & { message?: string; stack?: string; cause?: unknown; severity?: unknown };

/**
 * A failed query's SQL text helps; its values do not belong in a log: they
 * are user data, key hashes and webhook secrets. Errors are serialised with
 * their causes, and every value of a query is left out.
 */
function withoutQueryValues(serialized: SerializedError): SerializedError {
  const clean: SerializedError = { ...serialized };
  for (const field of PARAMETER_FIELDS) delete clean[field];
  if (typeof clean.message === 'string') clean.message = clean.message.replace(PARAMETERS_IN_MESSAGE, '');
  if (typeof clean.stack === 'string') clean.stack = clean.stack.replace(/\nparams: [^]*?(?=\n\s+at |$)/, '');
  if (typeof clean.severity === 'string') {
    // A PostgreSQL error: its code, routine and position say what went wrong; its quotes may hold a value.
    if (typeof clean.message === 'string') clean.message = clean.message.replace(QUOTED, '"…"');
    if (typeof clean.stack === 'string') clean.stack = clean.stack.replace(QUOTED, '"…"');
  }
  if (clean.cause && typeof clean.cause === 'object') clean.cause = withoutQueryValues(clean.cause as SerializedError);
  return clean;
}

/**
 * Structured JSON lines on stdout; one per request plus start-up and failures.
 * Request lines carry the method, the path without its query string, the
 * status, the duration and the request id; never headers or bodies.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const log = pino(
    {
      level,
      base: BASE,
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: (error: Error) => withoutQueryValues(pino.stdSerializers.errWithCause(error) as SerializedError) },
    },
    destination,
  );
  if (destination) requestLineDestinations.set(log, destination);
  return log;
}

/** Writes the one line a finished request leaves. */
export type RequestLineWriter = (requestId: string, method: string, path: string, status: number, durationMs: number) => void;

/**
 * The request line exactly as `log.info({ reqId, method, path, status,
 * durationMs }, 'request')` writes it — same level, time, bindings and
 * field order, to the same destination — built by one template instead of
 * pino's walk over a merging object: the line is on every request, and
 * pino's general path costs a tenth of a health check's CPU
 * (docs/adr/0009-speed-measures.md; test/logging.test.ts
 * holds the two to the same bytes). A logger not made by `createLogger` with
 * its own destination goes through pino's `info`. Nothing when `info` is off.
 */
export function requestLineWriter(log: Logger): RequestLineWriter {
  if (!log.isLevelEnabled('info')) return () => {};
  const destination = requestLineDestinations.get(log);
  if (!destination) {
    return (reqId, method, path, status, durationMs) => log.info({ reqId, method, path, status, durationMs: Math.round(durationMs * 100) / 100 }, 'request');
  }
  const level = log.levels.values.info;
  return (requestId, method, path, status, durationMs) => {
    destination.write(
      `{"level":${level},"time":"${isoTimestampOf(new Date())}"${BINDINGS},"reqId":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"durationMs":${Math.round(durationMs * 100) / 100},"msg":"request"}\n`,
    );
  };
}
