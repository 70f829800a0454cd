import type { ServerResponse } from 'node:http';

/**
 * The headers a response will carry, gathered in one object from the moment
 * the request arrives (request id, CORS) to the route's answer, and written
 * by one `writeHead` with the status: `setHeader` checks, lower-cases and
 * stores every header on its own, about a tenth of a microsecond each, and
 * an answer here carries eight to twelve of them.
 */
export type ResponseHeaders = Record<string, string>;

/** For writers that set headers on the response one by one (tRPC's and Yoga's handlers, the stream, the pages). */
export function setHeadersOn(res: ServerResponse, headers: Readonly<ResponseHeaders>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

