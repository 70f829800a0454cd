// Following a board with the typed client's subscription, in Node.js: the
// `eventsource` package stands in for the EventSource Node.js 20 lacks, and
// carries the credential.
import { EventSource } from 'eventsource';
import { createLabApiClient, withIdempotencyKey, type BoardUpdate } from '@lab-api/client';

/** What following the board showed, for the test that runs this package to judge. */
export interface Followed {
  /** The boards in the order they came, by their event id and the score that moved them. */
  boards: { id: string; latest: string | null }[];
  /** Milliseconds from another client's submission being answered to its board arriving. */
  arrivalMs: number;
  /** Connections the subscription opened: the first and the one that resumed after the drop. */
  connections: number;
  /** The Authorization header each of those connections sent. */
  authorizations: (string | null)[];
}

const GAME = 'runner';

/**
 * A network whose open event streams the caller can cut, as a lost Wi-Fi
 * would: the response body fails with a network error (the request to the
 * service is cancelled with it), and the EventSource reconnects by itself.
 * (Aborting the request instead would look to the EventSource like its own
 * close(), after which it does not reconnect.)
 */
function cuttableNetwork(): { fetch: typeof fetch; cut(): void; streams: (string | null)[] } {
  const open = new Set<TransformStreamDefaultController<Uint8Array>>();
  const streams: (string | null)[] = [];
  const network: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const response = await fetch(input, init);
    if (headers.get('Accept') !== 'text/event-stream' || !response.body) return response;
    streams.push(headers.get('Authorization'));
    let cuttable: TransformStreamDefaultController<Uint8Array> | undefined;
    const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ start: (controller) => void (cuttable = controller) }));
    open.add(cuttable!);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    fetch: network,
    streams,
    cut: () => {
      for (const controller of open) controller.error(new TypeError('network connection lost'));
      open.clear();
    },
  };
}

/** Resolves when `holds()` becomes true after a change; rejects after `ms`. */
function changes(): { changed(): void; until(holds: () => boolean, ms: number, what: string): Promise<void> } {
  let waiting: { holds: () => boolean; done: () => void } | undefined;
  return {
    changed: () => {
      if (waiting?.holds()) waiting.done();
    },
    until: (holds, ms, what) =>
      new Promise<void>((resolve, reject) => {
        if (holds()) return resolve();
        const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
        waiting = { holds, done: () => (clearTimeout(timer), (waiting = undefined), resolve()) };
      }),
  };
}

export async function follow(baseUrl: string): Promise<Followed> {
  const other = createLabApiClient({ baseUrl });
  const { key } = await other.keys.create.mutate({ name: 'consumer subscription' });
  const network = cuttableNetwork();
  const client = createLabApiClient({ baseUrl, credential: key, fetch: network.fetch, EventSource });

  const boards: { id: string; data: BoardUpdate }[] = [];
  let state = 'idle';
  const events = changes();
  const latestIs = (initials: string) => () => boards.some((board) => board.data.latest?.initials === initials);
  const submit = (initials: string) => other.scores.submit.mutate({ game: GAME, initials, value: 100 }, withIdempotencyKey());

  const subscription = client.scores.live.subscribe(
    { game: GAME, limit: 5 },
    {
      onData: (board) => {
        boards.push(board);
        events.changed();
      },
      onConnectionStateChange: (change) => {
        state = change.state;
        events.changed();
      },
    },
  );
  try {
    await events.until(() => boards.length > 0, 10_000, 'first board');

    await submit('SUB');
    const answered = performance.now();
    await events.until(latestIs('SUB'), 10_000, 'board after SUB');
    const arrivalMs = performance.now() - answered;

    // The connection drops; a score comes while it is down; the client reconnects and resumes.
    network.cut();
    await events.until(() => state === 'connecting', 10_000, 'reconnection attempt');
    await submit('GAP');
    await events.until(latestIs('GAP'), 15_000, 'board after GAP');
    await submit('AFT');
    await events.until(latestIs('AFT'), 10_000, 'board after AFT');

    return {
      boards: boards.map((board) => ({ id: board.id, latest: board.data.latest?.initials ?? null })),
      arrivalMs,
      connections: network.streams.length,
      authorizations: network.streams,
    };
  } finally {
    subscription.unsubscribe();
  }
}
