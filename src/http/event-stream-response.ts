import type { ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.ts';
import type { OpenStreams } from './open-streams.ts';
import { appendVary } from './vary.ts';

export interface EventStreamLimits {
  clock: Clock;
  /** SSE_STREAM_MS: how long a stream lasts before the service ends it (clients reconnect and resume). */
  streamMs: number;
  openStreams: OpenStreams;
}

/**
 * Writes a library's event-stream answer (tRPC's and Yoga's SSE, a fetch
 * `Response`) to the client, and ends it the way the REST stream ends: after
 * SSE_STREAM_MS, at shutdown, or when the client goes. Ending means the
 * connection closes without the protocol's own "complete" message, so the
 * client's library reconnects (and resumes) rather than taking the
 * subscription as finished. `stop` aborts the request the library is
 * serving, which ends its subscription and releases what it holds.
 */
export async function writeEventStream(res: ServerResponse, response: Response, stop: AbortController, limits: EventStreamLimits): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    // Added to what the request handler set (Origin, for CORS), not in its place.
    if (name === 'vary') for (const field of value.split(',')) appendVary(res, field.trim());
    else res.setHeader(name, value);
  });
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // Refused before any stream (a batch of subscriptions, say): an ordinary answer.
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  // Asks a proxy in front (nginx) to pass each event on at once, as on the REST stream.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    endOfStream.cancel();
    forget();
    stop.abort();
    reader.cancel().catch(() => {});
    res.end();
  };
  const endOfStream = limits.clock.after(limits.streamMs, end);
  const forget = limits.openStreams.add(end);
  res.on('close', end);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || ended) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  } catch {
    // The stream was cancelled (its end above) or the library's stream failed: either way it ends here.
  } finally {
    end();
  }
}
