import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered with. */
  status: number;
}

/** How the receiver answers a verification request (docs/spec/DECISIONS.md, "Webhook endpoint verification"). */
export type VerificationAnswer = { status: number; body: string };

export interface WebhookReceiver {
  url: string;
  /** Event deliveries, in the order they were answered; verification requests are kept apart. */
  received: ReceivedWebhook[];
  /** Decides each event delivery's status (possibly later); 204 by default. */
  respond: (attempt: ReceivedWebhook, index: number) => number | Promise<number>;
  /** Event deliveries that arrived, counted before they are answered. */
  arrived: number;
  /** Resolves once `count` event deliveries have arrived, answered or not. */
  waitForArrival(count: number): Promise<void>;
  /** Resolves once `count` event deliveries have been answered. */
  waitFor(count: number): Promise<ReceivedWebhook[]>;
  /** Verification requests, in order of arrival. */
  verifications: ReceivedWebhook[];
  /** Answers a verification request; by default as a willing receiver does: 200 with the challenge as the whole body. */
  verify: (request: ReceivedWebhook, challenge: string, index: number) => VerificationAnswer | Promise<VerificationAnswer>;
  /** Resolves once `count` verification requests have arrived. */
  waitForVerifications(count: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

function challengeOf(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as { type?: unknown; data?: { challenge?: unknown } };
    return message.type === 'webhook.verification' && typeof message.data?.challenge === 'string' ? message.data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A real HTTP receiver on loopback that records every request. It echoes
 * verification challenges unless told otherwise, as docs/usage.md's example
 * receiver does. `host` picks the loopback address it listens on
 * (127.0.0.1 by default; any of 127.0.0.0/8 is this machine), so tests can
 * have receivers on different hosts.
 */
export async function startWebhookReceiver(options: { host?: string } = {}): Promise<WebhookReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const arrivals: { count: number; resolve: () => void }[] = [];
  const verificationWaiters: { count: number; resolve: () => void }[] = [];
  const settle = (list: { count: number; resolve: () => void }[], reached: number) => {
    for (const waiter of [...list]) {
      if (reached >= waiter.count) {
        list.splice(list.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
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
    verifications: [],
    verify: (_request, challenge) => ({ status: 200, body: challenge }),
    waitForVerifications(count) {
      if (receiver.verifications.length >= count) return Promise.resolve(receiver.verifications.slice(0, count));
      return new Promise((resolve) => verificationWaiters.push({ count, resolve: () => resolve(receiver.verifications.slice(0, count)) }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      const attempt: ReceivedWebhook = { headers: req.headers, body, status: 0 };
      const challenge = challengeOf(body);
      if (challenge !== undefined) {
        const index = receiver.verifications.length;
        receiver.verifications.push(attempt);
        settle(verificationWaiters, receiver.verifications.length);
        const answer = await receiver.verify(attempt, challenge, index);
        attempt.status = answer.status;
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        res.end(answer.body);
        return;
      }
      const index = receiver.arrived++;
      settle(arrivals, receiver.arrived);
      attempt.status = await receiver.respond(attempt, index);
      receiver.received.push(attempt);
      res.statusCode = attempt.status;
      res.end();
      settle(waiters, receiver.received.length);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  receiver.url = `http://${host}:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
