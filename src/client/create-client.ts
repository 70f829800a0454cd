import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  retryLink,
  splitLink,
  TRPCClientError,
  type TRPCClient,
} from '@trpc/client';
import type { AppRouter, RouterInputs, RouterOutputs } from './app-router.ts';
import { eventSourceOptionsWith, type EventSourceClass } from './event-source.ts';
import { IDEMPOTENCY_KEY, retriesMutation, SUBMISSION_RETRY_DELAYS_MS, type IdempotentCall } from './idempotency.ts';

export type { AppRouter, BoardUpdate, RouterInputs, RouterOutputs } from './app-router.ts';
export type { EventSourceClass, EventSourceOptions } from './event-source.ts';
export { newIdempotencyKey, withIdempotencyKey, type IdempotentCall } from './idempotency.ts';

export interface LabApiClientOptions {
  /** Where the service answers, e.g. `https://api.example.com`; `''` for the page's own origin. */
  baseUrl: string;
  /** An API key or access token, sent as `Authorization: Bearer …`; a function is asked before every request. */
  credential?: string | (() => string | undefined);
  /** Another fetch (a test double of the network, React Native, an instrumented one). */
  fetch?: typeof fetch;
  /**
   * The `EventSource` class subscriptions use; by default the runtime's own
   * (browsers; Node.js 20 has none). Pass the `eventsource` package's class
   * in Node.js, or wherever subscriptions must carry the credential: it is
   * sent through that class's `fetch` option. A browser's own EventSource
   * cannot send headers, so with it subscriptions go anonymous.
   */
  EventSource?: EventSourceClass;
}

type Client = TRPCClient<AppRouter>;

/**
 * The typed client: every procedure as `createTRPCClient<AppRouter>` gives
 * it, except that `scores.submit` requires an Idempotency-Key
 * (`withIdempotencyKey(key)`): a call without one does not compile, where the
 * service would refuse it with a 400.
 */
export type LabApiClient = Omit<Client, 'scores'> & {
  scores: Omit<Client['scores'], 'submit'> & {
    submit: { mutate(input: RouterInputs['scores']['submit'], options: IdempotentCall): Promise<RouterOutputs['scores']['submit']> };
  };
};
export type LabApiError = TRPCClientError<AppRouter>;

/**
 * The typed client. Queries made in the same tick go in one batched request
 * (at most 10 calls, the service's cap); every mutation is a request of its
 * own, so that its Idempotency-Key and its rate-limit count are its alone; a
 * keyed mutation that got no answer, a 503 or a 409 is sent again with the
 * same key, at most three times (0.5 s, 1 s, 2 s apart); subscriptions go over
 * Server-Sent Events and resume after the last event seen when they reconnect.
 */
export function createLabApiClient(options: LabApiClientOptions): LabApiClient {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/trpc`;
  const authorization = (): Record<string, string> => {
    const credential = typeof options.credential === 'function' ? options.credential() : options.credential;
    return credential ? { Authorization: `Bearer ${credential}` } : {};
  };
  const transport = options.fetch ? { fetch: options.fetch } : {};
  const requests = splitLink<AppRouter>({
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
  });
  const subscriptions = options.EventSource
    ? httpSubscriptionLink<AppRouter, EventSourceClass>({
        url,
        EventSource: options.EventSource,
        eventSourceOptions: () => eventSourceOptionsWith(authorization, options.fetch),
      })
    : httpSubscriptionLink<AppRouter, typeof EventSource>({ url });
  return createTRPCClient<AppRouter>({
    links: [
      retryLink({ retry: retriesMutation, retryDelayMs: (attempt) => SUBMISSION_RETRY_DELAYS_MS[attempt - 1] ?? 0 }),
      splitLink({ condition: (op) => op.type === 'subscription', true: subscriptions, false: requests }),
    ],
  }) as LabApiClient;
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
