import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered with. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides each answer's status (possibly later); 204 by default. */
  respond: (attempt: ReceivedWebhook, index: number) => number | Promise<number>;
  /** Requests that arrived, counted before they are answered. */
  arrived: number;
  /** Resolves once `count` requests have arrived, answered or not. */
  waitForArrival(count: number): Promise<void>;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that records every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const arrivals: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond: () => 204,
    arrived: 0,
    waitForArrival(count) {
      if (receiver.arrived >= count) return Promise.resolve();
      return new Promise((resolve) => arrivals.push({ count, resolve }));
    },
    waitFor(count) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received.slice(0, count));
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(receiver.received.slice(0, count)) }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      const attempt: ReceivedWebhook = { headers: req.headers, body, status: 0 };
      const index = receiver.arrived++;
      for (const arrival of [...arrivals]) {
        if (receiver.arrived >= arrival.count) {
          arrivals.splice(arrivals.indexOf(arrival), 1);
          arrival.resolve();
        }
      }
      attempt.status = await receiver.respond(attempt, index);
      receiver.received.push(attempt);
      res.statusCode = attempt.status;
      res.end();
      for (const waiter of [...waiters]) {
        if (receiver.received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
