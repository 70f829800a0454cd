import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'lab_';

/** `lab_` + 43 URL-safe base64 characters: 32 bytes from the CSPRNG (docs/spec/SPEC.md, "CreatedKey"). */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What the database holds instead of the key. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
