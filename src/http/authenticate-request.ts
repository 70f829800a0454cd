import type { IncomingMessage } from 'node:http';
import { authenticate } from '../services/auth/authenticate.ts';
import { malformedAuthorization } from '../services/auth/bearer-challenge.ts';
import type { Caller } from '../services/auth/caller.ts';
import type { ServiceContext } from '../services/service-context.ts';

const BEARER = /^bearer[ \t]+(.+)$/i;

/**
 * docs/spec/SPEC.md, "Rules on every request" 1–3, run before any route: no header is
 * anonymous; another scheme or no credential is a 401; a credential that
 * fails verification is a 401 even on a public endpoint.
 */
export async function authenticateRequest(service: ServiceContext, req: IncomingMessage): Promise<Caller | undefined> {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const credential = BEARER.exec(header.trim())?.[1]?.trim();
  if (!credential) throw malformedAuthorization(service);
  return authenticate({ ctx: service, input: { credential } });
}
