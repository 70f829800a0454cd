import type { DestinationStream } from 'pino';

/** Lines held in memory while stdout does not take them; past this, new lines are dropped. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface LogOutput {
  stream: DestinationStream;
  /** Writes what is buffered, waiting at most `timeoutMs`: shutdown must end whatever stdout does. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Where the service's log lines go. On a terminal, pino-pretty's readable
 * lines when it is installed (a development dependency); otherwise JSON lines
 * on stdout.
 */
export async function openLogOutput(): Promise<LogOutput> {
  if (process.stdout.isTTY) {
    const pretty = await import('pino-pretty').catch(() => undefined);
    if (pretty) {
      const stream = pretty.default({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
      return { stream, close: async () => {} };
    }
  }
  return jsonLinesOnStdout();
}

/**
 * JSON lines on stdout, the lines of one turn of the event loop in one write.
 *
 * Node writes to a pipe or socket without blocking: what the reader has not
 * taken waits in memory, so a reader that stalls never stalls the service;
 * past MAX_BUFFERED_BYTES new lines are dropped. A reader that goes away
 * (EPIPE) ends logging. A file is written synchronously, as a file can be.
 * No thread pool is involved, unlike pino's own destination (sonic-boom),
 * whose asynchronous writes go through libuv's pool and which measures its
 * whole buffer again on every line: a tenth of a health check's CPU.
 * Its exit hook also retried a failed write for ever (sonic-boom's
 * flushSync), so an instance whose log pipe had closed never exited.
 */
function jsonLinesOnStdout(): LogOutput {
  const stdout = process.stdout;
  let open = true;
  let pending: string[] = [];
  // EPIPE (the reader is gone) or any other write failure: nothing more can be logged.
  stdout.on('error', () => {
    open = false;
  });
  const flush = () => {
    const lines = pending;
    if (lines.length === 0) return;
    pending = [];
    if (open && stdout.writableLength < MAX_BUFFERED_BYTES) stdout.write(lines.length === 1 ? lines[0]! : lines.join(''));
  };
  return {
    stream: {
      write: (line: string) => {
        if (!open) return;
        if (pending.push(line) === 1) setImmediate(flush);
      },
    },
    close: (timeoutMs) => {
      flush();
      open = false;
      if (stdout.writableLength === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        stdout.once('drain', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
