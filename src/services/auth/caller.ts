import type { Scope } from '../../schemas/scopes.ts';

export type { Scope };

/** Who sent a request, once its credential has been verified. */
export interface Caller {
  method: 'api-key' | 'jwt';
  keyId: string;
  name: string;
  scopes: Scope[];
  /** The key's expiry, or the token's when method is `jwt`. */
  expiresAt: Date;
}
