// CommonJS: its class is a property of the module object.
import sonicBoom from 'sonic-boom';
import type { DestinationStream } from 'pino';

/** Lines held in memory while stdout does not take them; past this, new lines are dropped. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface LogOutput {
  stream: DestinationStream;
  /** Writes what is buffered and ends, waiting at most `timeoutMs`: shutdown must end whatever stdout does. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Where the service's log lines go. On a terminal, pino-pretty's readable
 * lines when it is installed (a development dependency); otherwise JSON lines
 * on stdout, written asynchronously. A reader that stalls never stalls the
 * service: lines queue up to MAX_BUFFERED_BYTES, then are dropped. A reader
 * that goes away ends logging. pino's own destination would instead retry a
 * failed write for ever in its exit hook (sonic-boom's flushSync), so an
 * instance whose log pipe had closed never exited.
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

function jsonLinesOnStdout(): LogOutput {
  const boom = new sonicBoom.SonicBoom({ fd: 1, sync: false, maxLength: MAX_BUFFERED_BYTES });
  let open = true;
  // EPIPE (the reader is gone) or any other write failure: nothing more can be logged.
  boom.on('error', () => {
    open = false;
  });
  return {
    stream: {
      write: (line: string) => {
        if (open) boom.write(line);
      },
    },
    close: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (!open) return resolve();
        open = false;
        const timer = setTimeout(resolve, timeoutMs);
        boom.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        boom.end();
      }),
  };
}
