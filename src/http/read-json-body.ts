import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { nestsDeeperThan, TOO_DEEP_DETAIL } from '../lib/json-nesting.ts';

/** docs/spec/DECISIONS.md: bodies over 64 KiB are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A body declared over MAX_BODY_BYTES is never read, whatever the answer (a
 * 413, or a 404 or 401 that comes first): the connection closes after the
 * answer, where node:http would otherwise read the rest to keep it open.
 */
export function closeAfterOversizedBody(req: IncomingMessage, res: ServerResponse): void {
  if (declaresOversizedBody(req)) res.setHeader('Connection', 'close');
}

function declaresOversizedBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length']) > MAX_BODY_BYTES;
}

class BodyTooLargeError extends AppError {
  constructor() {
    super('payload-too-large', { detail: `Send at most ${MAX_BODY_BYTES} bytes.` });
  }
}

/**
 * Reads the whole body as text, refusing more than MAX_BODY_BYTES. By the
 * stream's events: its async iterator cost a write request a few microseconds
 * more. Past the limit the rest of the body is read and dropped; the 413 closes
 * the connection.
 */
export function readBodyText(req: IncomingMessage): Promise<string> {
  if (declaresOversizedBody(req)) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      done();
      req.resume();
      reject(new BodyTooLargeError());
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // The client went away before the body ended.
    const onClose = () => {
      done();
      reject(Object.assign(new Error('The request ended before its body did'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * Parses a body as JSON. Any content type is read as JSON: clients that
 * forget the header still get a precise answer about their JSON. A body
 * nested deeper than 64 levels is refused unparsed (docs/spec/DECISIONS.md, "Deep JSON").
 */
export function parseJsonBody(text: string): unknown {
  if (nestsDeeperThan(text)) {
    throw new AppError('bad-request', { detail: TOO_DEEP_DETAIL });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad-request', {
      detail: text.trim() === '' ? 'The request body is empty; send a JSON object.' : 'The request body could not be parsed as JSON.',
    });
  }
}
