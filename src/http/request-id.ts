import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTED_REQUEST_ID = /^[\x20-\x7e]{1,200}$/;

/** The client's X-Request-Id when it is 1–200 printable characters, else a new UUID (docs/spec/DECISIONS.md). */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && ACCEPTED_REQUEST_ID.test(sent) ? sent : randomUUID();
}
