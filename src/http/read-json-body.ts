import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.ts';
import { nestsDeeperThan, TOO_DEEP_DETAIL } from '../lib/json-nesting.ts';

/** DECISIONS: bodies over 64 KiB are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

export class BodyTooLargeError extends AppError {
  constructor() {
    super('payload-too-large', { detail: `Send at most ${MAX_BODY_BYTES} bytes.` });
  }
}

/** Reads the whole body as text, refusing more than MAX_BODY_BYTES. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Parses a body as JSON. Any content type is read as JSON: clients that
 * forget the header still get a precise answer about their JSON. A body
 * nested deeper than 64 levels is refused unparsed (DECISIONS "Deep JSON").
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
