import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { AppError } from '../../errors/app-error.ts';
import { SCOPES } from '../../schemas/scopes.ts';
import type { Caller } from './caller.ts';
import type { ServiceContext } from '../service-context.ts';

/** The audience of every token we issue and accept (docs/spec/DECISIONS.md). */
const TOKEN_AUDIENCE = 'lab-api';
export const TOKEN_LIFETIME_SECONDS = 900;

const secretKeys = new Map<string, Uint8Array>();
function secretKey(secret: string): Uint8Array {
  let key = secretKeys.get(secret);
  if (!key) secretKeys.set(secret, (key = new TextEncoder().encode(secret)));
  return key;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

/** Mints an HS256 JWT for an API-key caller (docs/spec/SPEC.md, "JWT claims issued by POST /api/token"). */
export async function issueToken({ ctx, input }: { ctx: ServiceContext; input: { caller: Caller } }): Promise<IssuedToken> {
  const secret = ctx.settings.jwtSecret;
  if (secret === undefined) {
    throw new AppError('unavailable', { detail: 'Tokens cannot be issued: this deployment has no signing secret.' });
  }
  const { caller } = input;
  const issuedAt = Math.floor(ctx.clock.now().getTime() / 1000);
  const scope = caller.scopes.join(' ');
  const accessToken = await new SignJWT({ name: caller.name, scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(caller.keyId)
    .setIssuer(ctx.settings.baseUrl)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
    .sign(secretKey(secret));
  return { accessToken, expiresIn: TOKEN_LIFETIME_SECONDS, scope };
}

/** The furthest a JavaScript Date reaches either side of 1970, in seconds (ECMA-262: ±8.64e15 ms). */
const DATE_RANGE_SECONDS = 8.64e12;

/** A NumericDate (RFC 7519) that JavaScript can turn into a Date: anything else makes the token invalid. */
const numericDate = z
  .number()
  .int()
  .refine((seconds) => Math.abs(seconds) <= DATE_RANGE_SECONDS);

const tokenClaims = z.object({
  sub: z.guid(),
  name: z.string(),
  scope: z.string(),
  exp: numericDate,
  iat: numericDate.optional(),
});

/**
 * Verifies a token by signature alone — no lookup, so it outlives its key's
 * revocation. Only HS256 is accepted (RFC 8725), with our issuer and audience.
 */
export async function verifyToken({ ctx, input }: { ctx: ServiceContext; input: { token: string } }): Promise<Caller | undefined> {
  const secret = ctx.settings.jwtSecret;
  if (secret === undefined) return undefined;
  try {
    const { payload } = await jwtVerify(input.token, secretKey(secret), {
      algorithms: ['HS256'],
      issuer: ctx.settings.baseUrl,
      audience: TOKEN_AUDIENCE,
      requiredClaims: ['exp', 'sub'],
      currentDate: ctx.clock.now(),
    });
    const claims = tokenClaims.parse(payload);
    const scopes = claims.scope === '' ? [] : claims.scope.split(' ');
    if (!scopes.every((scope): scope is Caller['scopes'][number] => (SCOPES as readonly string[]).includes(scope))) return undefined;
    return { method: 'jwt', keyId: claims.sub.toLowerCase(), name: claims.name, scopes, expiresAt: new Date(claims.exp * 1000) };
  } catch {
    return undefined;
  }
}
