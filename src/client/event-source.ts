/**
 * What the client hands an `EventSource` class besides the URL. The
 * `eventsource` package's class fetches with the `fetch` given here, which is
 * how a subscription carries the credential; a browser's own EventSource
 * ignores it and cannot send headers at all.
 */
export interface EventSourceOptions {
  withCredentials?: boolean;
  fetch?: (url: string | URL, init: { headers: Record<string, string> }) => Promise<Response>;
}

/** An `EventSource` class, e.g. `import { EventSource } from 'eventsource'` where the runtime has none (Node.js 20). */
export type EventSourceClass = new (url: string, init?: EventSourceOptions) => {
  readonly CLOSED: number;
  readonly CONNECTING: number;
  readonly OPEN: number;
  readonly readyState: number;
  addEventListener(type: string, listener: (event: object) => void): void;
  removeEventListener(type: string, listener: (event: object) => void): void;
  close(): void;
};

/** Options that make the class send `headers()` with each connection, over `baseFetch` (the global one by default). */
export function eventSourceOptionsWith(headers: () => Record<string, string>, baseFetch: typeof fetch | undefined): EventSourceOptions {
  return {
    fetch: (url, init) => (baseFetch ?? fetch)(url, { ...init, headers: { ...init.headers, ...headers() } }),
  };
}
