import { hash } from 'node:crypto';
import { withTransaction, type ServiceContext } from '../service-context.ts';
import { parseIdempotencyKey } from './idempotency-key.ts';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type StoredResponse } from './idempotency-records.ts';

export interface IdempotentRequest {
  /** The client the key belongs to (docs/spec/DECISIONS.md: the API key, else the address). */
  client: string;
  /** The request's headers, its Idempotency-Key among them. */
  headers: Record<string, string | string[] | undefined>;
  method: string;
  path: string;
  /** The raw body, read only once the key is known to be well-formed. */
  body: () => Promise<string>;
}

export type IdempotentOutcome<T> = { replayed: true; stored: StoredResponse } | { replayed: false; stored: StoredResponse; value: T };

/**
 * docs/spec/SPEC.md, "Idempotency-Key header rules" as one verb around the work:
 * 1. parse the key (400), fingerprint method, path and raw body;
 * 2. claim the key in a statement of its own (409 / 422 / replay otherwise);
 * 3. run the work inside ONE transaction that also stores its answer, so the
 *    work and its record commit together or not at all;
 * 4. on any failure, release the key so it can be used again, and rethrow.
 * A replay answers the stored response without running the work.
 */
export async function runIdempotent<T>({
  ctx,
  input,
  work,
  represent,
}: {
  ctx: ServiceContext;
  input: IdempotentRequest;
  work: (tx: ServiceContext) => Promise<T>;
  /** The exact answer to store (and send) for the work's result. */
  represent: (value: T) => StoredResponse;
}): Promise<IdempotentOutcome<T>> {
  const key = parseIdempotencyKey(input.headers);
  const fingerprint = hash('sha256', `${input.method} ${input.path}\n${await input.body()}`, 'hex');
  const outcome = await claimIdempotencyKey({ ctx, input: { client: input.client, key, fingerprint } });
  if (outcome.kind === 'replay') return { replayed: true, stored: outcome.response };

  const claim = { client: input.client, key, claim: outcome.claim };
  try {
    return await withTransaction(ctx, async (tx) => {
      const value = await work(tx);
      const stored = represent(value);
      completeIdempotencyKey({ ctx: tx, input: { ...claim, response: stored } });
      return { replayed: false, stored, value };
    });
  } catch (error) {
    await releaseIdempotencyKey({ ctx, input: claim });
    throw error;
  }
}
