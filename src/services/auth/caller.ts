/** The scopes a key can carry (SPEC "Scopes"). */
export const SCOPES = ['stats:read', 'tasks:export'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who sent a request, once its credential has been verified. */
export interface Caller {
  method: 'api-key' | 'jwt';
  keyId: string;
  name: string;
  scopes: Scope[];
  /** The key's expiry, or the token's when method is `jwt`. */
  expiresAt: Date;
}
