import { authenticateApiKey } from '../keys/authenticate-api-key.ts';
import { API_KEY_PREFIX } from '../keys/api-key-secret.ts';
import type { ServiceContext } from '../service-context.ts';
import { INVALID_API_KEY, INVALID_TOKEN, invalidCredential } from './bearer-challenge.ts';
import type { Caller } from './caller.ts';
import { verifyToken } from './tokens.ts';

/**
 * Verifies a Bearer credential (docs/spec/SPEC.md, "Credential kinds"): `lab_…` is an API
 * key, anything else a JWT. A credential that fails is a 401 wherever it was
 * sent, public endpoints included.
 */
export async function authenticate({ ctx, input }: { ctx: ServiceContext; input: { credential: string } }): Promise<Caller> {
  const { credential } = input;
  if (credential.startsWith(API_KEY_PREFIX)) {
    const caller = await authenticateApiKey({ ctx, input: { key: credential } });
    if (!caller) throw invalidCredential(ctx, INVALID_API_KEY);
    return caller;
  }
  const caller = await verifyToken({ ctx, input: { token: credential } });
  if (!caller) throw invalidCredential(ctx, INVALID_TOKEN);
  return caller;
}
