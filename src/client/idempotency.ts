import type { Operation, TRPCRequestOptions } from '@trpc/client';

/** tRPC's per-call context key the mutation link turns into an `Idempotency-Key` header. */
export const IDEMPOTENCY_KEY = 'idempotencyKey';

/** Call options that carry an Idempotency-Key: what `scores.submit` requires as its second argument. */
export type IdempotentCall = TRPCRequestOptions & { context: { [IDEMPOTENCY_KEY]: string } };

/**
 * A fresh Idempotency-Key. crypto.randomUUID exists only in secure contexts
 * (https, localhost) and Node.js; a page on plain http elsewhere builds a
 * version 4 UUID from getRandomValues, which exists everywhere.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Call options that send an `Idempotency-Key` with a mutation:
 * `client.scores.submit.mutate(score, withIdempotencyKey(key))`. Keep the key
 * of a submission that got no answer and send it again with the same one: the
 * service answers a repeat with the first answer instead of storing the score
 * twice. Without a key, a fresh one: enough when only the client's own
 * retries need it.
 */
export function withIdempotencyKey(key: string = newIdempotencyKey(), options: TRPCRequestOptions = {}): IdempotentCall {
  return { ...options, context: { ...options.context, [IDEMPOTENCY_KEY]: key } };
}

/** Waits before the client's own retries of one submission: three retries, 3.5 s in all. */
export const SUBMISSION_RETRY_DELAYS_MS = [500, 1_000, 2_000] as const;

/**
 * Whether the client sends a failed mutation again by itself: only one that
 * carries an Idempotency-Key (the same key, so the service stores it once),
 * and only when trying again can help: no answer at all (the network, a proxy
 * with no JSON), 503 (the database unavailable, a switchover) or 409 (the
 * first attempt with that key still running). An aborted call stays aborted.
 */
export function retriesMutation({ op, error, attempts }: { op: Operation; error: { data?: { httpStatus?: number } | null }; attempts: number }): boolean {
  if (op.type !== 'mutation' || typeof op.context[IDEMPOTENCY_KEY] !== 'string') return false;
  if (attempts > SUBMISSION_RETRY_DELAYS_MS.length || op.signal?.aborted) return false;
  const status = error.data?.httpStatus;
  return status === undefined || status === 503 || status === 409;
}
