import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError, type TRPCClient } from '@trpc/client';
import type { AppRouter } from './app-router.ts';

export type { AppRouter, RouterInputs, RouterOutputs } from './app-router.ts';

export interface LabApiClientOptions {
  /** Where the service answers, e.g. `https://api.example.com`; `''` for the page's own origin. */
  baseUrl: string;
  /** An API key or access token, sent as `Authorization: Bearer …`; a function is asked before every request. */
  credential?: string | (() => string | undefined);
  /** Another fetch (a test double of the network, React Native, an instrumented one). */
  fetch?: typeof fetch;
}

export type LabApiClient = TRPCClient<AppRouter>;
export type LabApiError = TRPCClientError<AppRouter>;

/** tRPC's per-call context key the mutation link turns into an `Idempotency-Key` header. */
const IDEMPOTENCY_KEY = 'idempotencyKey';

/**
 * Call options that send an `Idempotency-Key` with a mutation:
 * `client.scores.submit.mutate(score, withIdempotencyKey(key))`. Reuse the
 * key when retrying after a network error: the service answers a repeat with
 * the first answer instead of storing the score twice.
 */
export function withIdempotencyKey(key: string): { context: Record<string, unknown> } {
  return { context: { [IDEMPOTENCY_KEY]: key } };
}

/**
 * The typed client. Queries made in the same tick go in one batched request
 * (at most 10 calls, the service's cap); every mutation is a request of its
 * own, so that its Idempotency-Key and its rate-limit count are its alone.
 */
export function createLabApiClient(options: LabApiClientOptions): LabApiClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/trpc`;
  const authorization = (): Record<string, string> => {
    const credential = typeof options.credential === 'function' ? options.credential() : options.credential;
    return credential ? { Authorization: `Bearer ${credential}` } : {};
  };
  const transport = options.fetch ? { fetch: options.fetch } : {};
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'mutation',
        true: httpLink({
          url,
          ...transport,
          headers: ({ op }) => {
            const key = op.context[IDEMPOTENCY_KEY];
            return { ...authorization(), ...(typeof key === 'string' ? { 'Idempotency-Key': key } : {}) };
          },
        }),
        false: httpBatchLink({ url, ...transport, maxItems: 10, headers: authorization }),
      }),
    ],
  });
}

/** Whether a failed call was answered by the service (or failed on the way: then `error.data` is undefined). */
export function isLabApiError(error: unknown): error is LabApiError {
  return error instanceof TRPCClientError;
}

/** After a 429: the seconds the service asks to wait (its Retry-After header, which CORS lets pages read). */
export function retryAfterSeconds(error: LabApiError): number | undefined {
  // Whatever fetch the client was given: its response only needs a Headers-like `get`.
  const response = error.meta?.['response'] as { headers?: { get?: (name: string) => string | null } } | undefined;
  const value = response?.headers?.get?.('Retry-After') ?? null;
  return value !== null && /^[0-9]+$/.test(value) ? Number(value) : undefined;
}
