import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { contentSecurityPolicy, referrerPolicy, xFrameOptions } from 'helmet';
import type { ResponseHeaders } from '../http/response-headers.ts';

/**
 * What one page loads, as CSP directives (`script-src`, `img-src`…) and
 * their sources: only its own origin (`'self'`), hashes of its own inline
 * text, and `data:` where the page's own files are made of it.
 */
export type PagePolicy = Readonly<Record<string, readonly string[]>>;

/** helmet's header builders are Connect middlewares: they set headers on a response. */
type HeaderMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: Error) => void) => void;

/**
 * Runs helmet's middlewares once on a response that is never sent and keeps
 * what they set: with fixed options each sets the same value on every call,
 * so a page's headers are built at start, not per request. A bad directive
 * (an unquoted 'self', a duplicate, a `;` in a value) throws here, at start.
 */
function headersSetBy(middlewares: readonly HeaderMiddleware[]): ResponseHeaders {
  const headers: ResponseHeaders = {};
  const socket = new Socket();
  const req = new IncomingMessage(socket);
  const res = new ServerResponse(req);
  // Kept as helmet names them (Content-Security-Policy), not lower-cased as getHeaders() would.
  res.setHeader = function (name, value) {
    headers[name] = String(value);
    return this;
  };
  for (const middleware of middlewares) {
    middleware(req, res, (error) => {
      if (error) throw error;
    });
  }
  socket.destroy();
  return headers;
}

/**
 * docs/spec/DECISIONS.md, "Security headers": a page's Content-Security-Policy,
 * `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY`. The policy
 * refuses everything (`default-src 'none'`) but what the page names; no
 * page may be framed (`frame-ancestors 'none'`, and X-Frame-Options for
 * browsers without CSP 2), none uses <base> or posts a form.
 */
export function pageHeaders(policy: PagePolicy): ResponseHeaders {
  return headersSetBy([
    contentSecurityPolicy({
      useDefaults: false,
      directives: {
        'default-src': ["'none'"],
        ...policy,
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
        'frame-ancestors': ["'none'"],
      },
    }),
    referrerPolicy({ policy: 'no-referrer' }),
    xFrameOptions({ action: 'deny' }),
  ]);
}

/** The CSP source that allows exactly this inline text (a <style> block) and nothing else. */
export function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}
