/**
 * GraphiQL's fetcher, as browser script for /graphiql's start script: it
 * defines `graphiqlFetcher(endpoint)`, which needs graphql-sse's browser build
 * (the `graphqlSse` global, a vendor asset) loaded before it.
 *
 * Why not Yoga's own: YogaGraphiQL runs a subscription through
 * @graphql-tools/executor-http, whichever `subscriptionsProtocol` it is given
 * ('SSE' and 'GRAPHQL_SSE' build the same executor; 'WS' and 'LEGACY_WS' need
 * WebSockets, which /api/graphql does not serve), and that executor takes the
 * end of the response body as the subscription's end; its `retry` option
 * repeats only a request whose single result holds errors. The service ends
 * every stream after SSE_STREAM_MS without the protocol's `complete`
 * (docs/adr/0011-live-boards-on-every-transport.md), so GraphiQL stopped
 * there. graphql-sse's client (distinct connections mode: one POST with
 * `Accept: text/event-stream` per subscription, what the endpoint serves)
 * subscribes again when a stream ends without `complete`, and the fresh
 * subscription starts with the current board: nothing is missed.
 *
 * Queries and mutations (introspection among them) are POSTed as JSON and
 * their answer shown as the server wrote it, as Yoga's fetcher did.
 */
export const GRAPHIQL_FETCHER_SCRIPT = `
function graphiqlFetcher(endpoint) {
  const url = new URL(endpoint, location.href).href;
  /** Tries after a failed or ended connection: graphql-sse counts from 0 again once a stream has delivered. */
  const RETRY_ATTEMPTS = 5;
  /** A stream the server ended is followed within a few hundred milliseconds, spread so that a restarted server's followers do not all come at once; failures back off. */
  const retryWait = (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** retries, 4000) * (0.5 + Math.random())));

  /** The operation the server will run (graphql's getOperationAST): without a name, the only one. */
  function isSubscription(documentAST, operationName) {
    const operations = documentAST ? documentAST.definitions.filter((definition) => definition.kind === 'OperationDefinition') : [];
    const operation = operationName ? operations.find((candidate) => candidate.name && candidate.name.value === operationName) : operations.length === 1 ? operations[0] : undefined;
    return operation !== undefined && operation.operation === 'subscription';
  }

  async function post(params, headers) {
    const response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/graphql-response+json, application/json', 'content-type': 'application/json', ...headers },
      body: JSON.stringify(params),
    });
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: response.status + ' ' + response.statusText + ': ' + text }] };
    }
  }

  /**
   * graphql-sse retries every answer but a stream. A refusal that asking again
   * would not change (a bad credential, a malformed request: a 4xx but 408 and
   * 429) is handed to it as what it means, the subscription's one result and
   * its end, so that GraphiQL shows the server's errors at once, as for a query.
   */
  async function refusalsAsResults(input, init) {
    const response = await fetch(input, init);
    if (response.status < 400 || response.status >= 500 || response.status === 408 || response.status === 429) return response;
    let result;
    try {
      result = JSON.stringify(await response.clone().json());
    } catch {
      return response;
    }
    return new Response('event: next\\ndata: ' + result + '\\n\\nevent: complete\\ndata:\\n\\n', { headers: { 'content-type': 'text/event-stream' } });
  }

  /** An Observable as GraphiQL takes it: Stop unsubscribes, which aborts the request. */
  function subscription(params, headers) {
    return {
      subscribe(sink) {
        const client = graphqlSse.createClient({ url, headers, credentials: 'same-origin', fetchFn: refusalsAsResults, retryAttempts: RETRY_ATTEMPTS, retry: retryWait });
        const unsubscribe = client.subscribe(params, {
          next: (result) => sink.next(result),
          complete: () => sink.complete(),
          // Still refused after every retry (the request limit, a service unavailable), the last answer's body says why.
          error: async (error) => {
            const refusal = error && error.response;
            if (refusal) {
              try {
                sink.next(await refusal.json());
                sink.complete();
                return;
              } catch {
                // Not JSON: reported as the error it is.
              }
            }
            sink.error(error);
          },
        });
        return { unsubscribe };
      },
    };
  }

  return (params, options) => {
    const headers = (options && options.headers) || {};
    return isSubscription(options && options.documentAST, params.operationName) ? subscription(params, headers) : post(params, headers);
  };
}
`;
