import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { lookup } from 'node:dns';
import { isForbiddenAddress } from './address-guard.ts';

export const USER_AGENT = 'lab-api-webhooks/1.0 (+https://standardwebhooks.com)';

/** The receiver's status, and with `readBody` its answer's body (empty when longer than 4 KiB); or why there was none. */
export type SendOutcome = { status: number; body?: string } | { error: string };

/** Of an answer's body, at most this much is read: a verification challenge is a few dozen characters. */
const MAX_ANSWER_BYTES = 4096;

/**
 * Resolves like Node's default lookup, then refuses a forbidden address, so
 * the address checked is the address connected to (no DNS rebinding between
 * the check and the connection).
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const refused = list.find((entry) => isForbiddenAddress(entry.address));
    if (refused) return callback(new Error(`refused to connect to ${refused.address}`), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: unknown) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * One POST of a webhook: no redirects followed (a 3xx is an answer like any
 * other), a hard timeout, and — unless private targets are allowed — no
 * connection to a loopback, private or link-local address, even by IP literal.
 */
export function sendWebhook(options: {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Read the answer's body, up to 4 KiB (a verification request's echo); else only its status is waited for. */
  readBody?: boolean;
}): Promise<SendOutcome> {
  const url = new URL(options.url);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && /^[\d.]+$|:/.test(literal) && isForbiddenAddress(literal)) {
    return Promise.resolve({ error: `refused to connect to ${literal}` });
  }
  const requestOptions: RequestOptions = {
    method: 'POST',
    headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
    timeout: options.timeoutMs,
    ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const deadline = setTimeout(() => request.destroy(new Error('timed out')), options.timeoutMs);
    const request = send(url, requestOptions, (response) => {
      const status = response.statusCode ?? 0;
      const settle = (outcome: SendOutcome) => {
        clearTimeout(deadline);
        resolve(outcome);
        // The rest of the answer is not wanted: it may be long, or never end.
        response.destroy();
      };
      // Of an event delivery's answer only the status counts.
      if (!options.readBody) {
        settle({ status });
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // Longer than any echo of a challenge: the answer is not one, whatever follows.
        if (kept > MAX_ANSWER_BYTES) settle({ status, body: '' });
      });
      response.on('end', () => settle({ status, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => settle({ error: error.message }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => {
      clearTimeout(deadline);
      resolve({ error: error.message });
    });
    request.end(options.body);
  });
}
