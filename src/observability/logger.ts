import type { DestinationStream } from 'pino';
import { pino, type Logger } from 'pino';
import { isoTimestampOf } from '../lib/iso-timestamp.ts';

export type { Logger };

/** Where a failed query's values appear: Drizzle's message ("…\nparams: a,b") and fields. */
const PARAMETERS_IN_MESSAGE = /\nparams: [^]*$/;
const PARAMETER_FIELDS = ['params', 'parameters', 'args', 'detail'];
/** PostgreSQL quotes the value it rejects ("invalid input syntax for type integer: \"…\""). */
const QUOTED = /"[^"]*"/g;

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
  return pino(
    {
      level,
      base: { service: 'lab-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: (error: Error) => withoutQueryValues(pino.stdSerializers.errWithCause(error) as SerializedError) },
    },
    destination,
  );
}

/** Writes the one line a finished request leaves. */
export type RequestLineWriter = (requestId: string, method: string, path: string, status: number, durationMs: number) => void;

type LoggerInternals = Record<symbol, unknown>;

/**
 * The request line exactly as `log.info({ reqId, method, path, status,
 * durationMs }, 'request')` writes it — same level, time, bindings and
 * field order, to the same destination — built by one template instead of
 * pino's walk over a merging object, and with the time formatted once per
 * millisecond: the line is on every request, and pino's general path cost
 * a tenth of a health check's CPU. Nothing when `info` is off.
 */
export function requestLineWriter(log: Logger): RequestLineWriter {
  if (!log.isLevelEnabled('info')) return () => {};
  const internals = log as unknown as LoggerInternals;
  const destination = internals[pino.symbols.streamSym] as DestinationStream;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  const level = log.levels.values.info;
  let timeMs = 0;
  /** Everything before the request id, the same for every line of one millisecond. */
  let head = '';
  return (requestId, method, path, status, durationMs) => {
    const now = Date.now();
    if (now !== timeMs) {
      timeMs = now;
      head = `{"level":${level},"time":"${isoTimestampOf(new Date(now))}"${bindings},"reqId":`;
    }
    destination.write(
      `${head}${jsonString(requestId)},"method":${jsonString(method)},"path":${jsonString(path)},"status":${status},"durationMs":${Math.round(durationMs * 100) / 100},"msg":"request"}\n`,
    );
  };
}

/** Printable ASCII but the quote and the backslash: the JSON string is the text in quotes. */
const NEEDS_NO_ESCAPING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `JSON.stringify` of a string, without its general path for the strings a
 * request line almost always holds (a UUID, a method, a plain path).
 */
function jsonString(text: string): string {
  return NEEDS_NO_ESCAPING.test(text) ? `"${text}"` : JSON.stringify(text);
}
