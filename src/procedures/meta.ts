import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Scope } from '../schemas/scopes.ts';
import type { LimitName } from '../services/rate-limits/limit-policies.ts';
import type { HttpMeta } from './http-meta.ts';

/** Who may call a procedure and which limit it counts against; enforced on every transport. */
export interface AccessMeta {
  /** `credentials`: any valid key or token; `api-key`: a key, not a token; a scope: a caller holding it. */
  requires?: 'credentials' | 'api-key' | Scope;
  rateLimit?: LimitName;
}

export type Meta = OpenApiMeta<{
  http?: HttpMeta;
  access?: AccessMeta;
  /** Requires an Idempotency-Key and answers repeats from the stored response (docs/spec/SPEC.md, "Idempotency-Key header rules"). */
  idempotent?: boolean;
}>;
