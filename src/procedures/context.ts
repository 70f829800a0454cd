import type { IncomingHttpHeaders } from 'node:http';
import { credentialsRequired } from '../services/auth/bearer-challenge.ts';
import type { Caller } from '../services/auth/caller.ts';
import type { StoredResponse } from '../services/idempotency/idempotency-records.ts';
import type { LiveBoards } from '../services/scores/live-boards.ts';
import type { RateLimitOutcome } from '../services/rate-limits/hit-rate-limit.ts';
import type { LimitName, Requester } from '../services/rate-limits/limit-policies.ts';
import type { ServiceContext } from '../services/service-context.ts';

/** What every procedure receives, whichever transport called it. */
export interface Context {
  service: ServiceContext;
  requestId: string;
  /**
   * The request as the transport saw it. `readBody` reads the raw body text
   * (once, when first asked), for transports that hand the procedure its body
   * unparsed: an idempotency fingerprint covers exactly those bytes.
   */
  request: { method: string; path: string; headers: IncomingHttpHeaders; readBody?: () => Promise<string> };
  /** The verified caller; undefined for an anonymous request. */
  caller: Caller | undefined;
  /**
   * The client's address (X-Forwarded-For's first entry with TRUST_PROXY) as
   * per-address rules count it: IPv4, or an IPv6 client's /64
   * (`2001:db8:1:2::/64`); see http/counted-address.ts.
   */
  clientAddress: string;
  /**
   * What the procedure adds to its answer: headers (Location, Link, RateLimit,
   * …), and for an idempotent procedure the answer as stored — replayed or
   * first sent — so it is serialised once and sent byte for byte.
   */
  response: { headers: Record<string, string>; idempotent?: { stored: StoredResponse; replayed: boolean } };
  /** The process's live leaderboards, which the subscriptions follow. */
  liveBoards: LiveBoards;
  /** The rate-limit count of this request, when its procedure is limited. */
  rateLimit?: RateLimitOutcome;
  /** Calls counted ahead, by limit: a GraphQL operation's limited fields, counted before it runs. */
  prepaid?: Map<LimitName, { calls: number; outcome: RateLimitOutcome }>;
}

/** The client a limit or an idempotency record is kept for (docs/spec/DECISIONS.md). */
export function clientIdOf(ctx: Context): string {
  return ctx.caller ? `key:${ctx.caller.keyId}` : `ip:${ctx.clientAddress}`;
}

/** Who a rate limit counts this request for (see LIMITS for whose counter each limit uses). */
export function requesterOf(ctx: Context): Requester {
  return { keyId: ctx.caller?.keyId, address: ctx.clientAddress };
}

/** The verified caller, or the 401 for an endpoint that needs one. */
export function requireCaller(ctx: Context): Caller {
  if (!ctx.caller) throw credentialsRequired(ctx.service);
  return ctx.caller;
}
