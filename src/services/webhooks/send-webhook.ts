import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { lookup } from 'node:dns';
import { isForbiddenAddress } from './address-guard.ts';

export const USER_AGENT = 'lab-api-webhooks/1.0 (+https://standardwebhooks.com)';

/** The receiver's status, and with `readBody` the start of its answer; or why there was none. */
export type SendOutcome = { status: number; body?: string } | { error: string };

/** Of an answer's body, only this much is read: a verification challenge is a few dozen characters. */
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
  /** Keep the first 4 KiB of the answer's body (a verification request's echo). */
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
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (!options.readBody || kept >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - kept));
        kept += chunk.length;
      });
      response.on('end', () => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, ...(options.readBody ? { body: Buffer.concat(chunks).toString('utf8') } : {}) });
      });
      response.on('error', (error) => {
        clearTimeout(deadline);
        resolve({ error: error.message });
      });
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => {
      clearTimeout(deadline);
      resolve({ error: error.message });
    });
    request.end(options.body);
  });
}
