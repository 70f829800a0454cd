import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { submitScore } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { SETTLED, subscribe, subscribeVerified, subscriptionStatus } from './support/webhooks-client.ts';

/**
 * docs/spec/DECISIONS.md, "Webhook sending": a window of sends in flight, refilled as each
 * ends, and at most 2 sends to one host at a time per instance. The slow host
 * is 127.0.0.1 and the others 127.0.0.2 and 127.0.0.3 (all this machine):
 * three hosts as the service sees them.
 */
const SENDING = { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000' } };

describe('a receiver that holds its connections delays only its own deliveries', () => {
  // A server of its own: every score another test submits would be one more delivery to these hosts.
  const hosts = useTestServer(SENDING);
  let slow: WebhookReceiver;
  let fast: WebhookReceiver;
  let other: WebhookReceiver;
  /** Lets the slow host's held answers go. */
  let releaseSlow!: () => void;
  beforeAll(async () => {
    [slow, fast, other] = await Promise.all([startWebhookReceiver({ host: '127.0.0.1' }), startWebhookReceiver({ host: '127.0.0.2' }), startWebhookReceiver({ host: '127.0.0.3' })]);
    const held = new Promise<number>((resolve) => (releaseSlow = () => resolve(204)));
    slow.respond = () => held;
    // One key fills its ten subscriptions with the slow host (its challenges are answered at once).
    const hoarder = bearer((await createKey(hosts.url, { name: 'hoarder' })).key);
    for (let i = 0; i < 10; i++) await subscribeVerified(hosts.url, hoarder, `${slow.url}/${i}`);
    await subscribeVerified(hosts.url, bearer((await createKey(hosts.url, { name: 'fast' })).key), fast.url);
    await subscribeVerified(hosts.url, bearer((await createKey(hosts.url, { name: 'other' })).key), other.url);
  });
  afterAll(async () => {
    releaseSlow();
    await Promise.all([slow.close(), fast.close(), other.close()]);
  });

  it('the other hosts get each score within a second while ten deliveries wait on the slow host, which never has more than 2 in flight; as it answers, the window is refilled as each send ends', async () => {
    for (let round = 1; round <= 3; round++) {
      const submitted = performance.now();
      await submitScore(hosts.url, { game: 'demo', initials: 'WIN', value: round });
      await Promise.all([fast.waitFor(round), other.waitFor(round)]);
      expect(performance.now() - submitted).toBeLessThan(1_000);
    }
    // Thirty deliveries are due on the slow host; two are under way.
    await slow.waitForArrival(2);
    expect(slow.arrived).toBe(2);
    expect(slow.received).toHaveLength(0);

    releaseSlow();
    await slow.waitFor(30);
    expect(slow.arrived).toBe(30);
    expect(new Set(slow.received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(30);
  });
});

describe('answers that do not end', () => {
  const service = useTestServer(SENDING);

  /** A receiver that echoes its challenge (with `padding` after it), and answers events 200 with a body that never ends. */
  async function endlessReceiver(padding = ''): Promise<{ url: string; close: () => Promise<void> }> {
    const streaming = new Set<NodeJS.Timeout>();
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const message = JSON.parse(body) as { type: string; data: { challenge?: string } };
        if (message.type === 'webhook.verification') {
          res.end(`${message.data.challenge}${padding}`);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('x'.repeat(1024)), 5);
        streaming.add(timer);
        res.on('close', () => clearInterval(timer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.5', resolve));
    return {
      url: `http://127.0.0.5:${(server.address() as AddressInfo).port}/endless`,
      close: () =>
        new Promise((resolve) => {
          for (const timer of streaming) clearInterval(timer);
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  it('an event delivery counts by its status at once, however long the body that follows', async () => {
    const endless = await endlessReceiver();
    try {
      const owner = bearer((await createKey(service.url, { name: 'endless' })).key);
      const { id } = await subscribeVerified(service.url, owner, endless.url);
      await submitScore(service.url, { game: 'demo', initials: 'END', value: 1 });
      // Well within the 10-second send timeout that reading the body to its end would run into.
      await vi.waitFor(async () => {
        const log = await request<{ items: { type: string; status: string; lastResponseStatus: number | null }[] }>(`${service.url}/api/webhooks/${id}/deliveries`, { headers: owner });
        expect(log.body.items.find((delivery) => delivery.type === 'score.submitted')).toMatchObject({ status: 'delivered', lastResponseStatus: 200 });
      }, { timeout: 5_000, interval: 50 });
    } finally {
      await endless.close();
    }
  });

  it('a verification answer longer than 4 KiB is not an echo of the challenge, whatever it starts with', async () => {
    const padded = await endlessReceiver(' '.repeat(5000));
    try {
      const owner = bearer((await createKey(service.url, { name: 'padded' })).key);
      const { id } = await subscribe(service.url, owner, padded.url);
      await vi.waitFor(async () => {
        const log = await request<{ items: { status: string; attempts: number; lastResponseStatus: number | null }[] }>(`${service.url}/api/webhooks/${id}/deliveries`, { headers: owner });
        expect(log.body.items).toEqual([expect.objectContaining({ status: 'pending', attempts: 1, lastResponseStatus: 200 })]);
      }, SETTLED);
      expect(await subscriptionStatus(service.url, owner, id)).toBe('pending');
    } finally {
      await padded.close();
    }
  });
});

/** Receivers on loopback hosts of their own (127.0.x.y), found at once, with keys enough for several owners. */
const MANY_RECEIVERS = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', RATE_LIMIT_KEYS_PER_HOUR: '1000' };

describe('many receivers on many hosts that hold their connections', () => {
  /** Slow receivers time out after a second here, so the test need not wait ten. */
  const timed = useTestServer({ env: { ...MANY_RECEIVERS, WEBHOOK_TIMEOUT_MS: '1000' } });

  it('hold at most a third of the window once they have shown they are slow: another host still gets each score within a second', async () => {
    // Twelve hosts (127.0.0.20–31) that echo their challenge and never answer an event, and one that answers at once.
    const holders = await Promise.all(Array.from({ length: 12 }, (_, i) => startWebhookReceiver({ host: `127.0.0.${20 + i}` })));
    const prompt = await startWebhookReceiver({ host: '127.0.0.40' });
    const never = new Promise<number>(() => {});
    for (const holder of holders) holder.respond = () => never;
    try {
      const keys = [bearer((await createKey(timed.url, { name: 'holder a' })).key), bearer((await createKey(timed.url, { name: 'holder b' })).key)];
      for (const [i, holder] of holders.entries()) await subscribeVerified(timed.url, keys[i % 2]!, holder.url);
      await subscribeVerified(timed.url, bearer((await createKey(timed.url, { name: 'prompt' })).key), prompt.url);
      // The first score shows the twelve hosts to be slow: their sends time out.
      await submitScore(timed.url, { game: 'demo', initials: 'SLW', value: 0 });
      await Promise.all(holders.map((holder) => holder.waitForArrival(1)));
      await prompt.waitFor(1);
      for (let round = 1; round <= 3; round++) {
        const submitted = performance.now();
        await submitScore(timed.url, { game: 'demo', initials: 'SLW', value: round });
        await prompt.waitFor(round + 1);
        expect(performance.now() - submitted).toBeLessThan(1_000);
      }
    } finally {
      await Promise.all([...holders, prompt].map((receiver) => receiver.close()));
    }
  });
});

describe('receivers on many hosts that never answer their verification request', () => {
  /** The default send timeout (10 s): a held verification request holds its place that long. */
  const service = useTestServer({ env: MANY_RECEIVERS });

  it('hold at most a third of the window between them: a verified receiver on another host gets its first score within a second while they wait', async () => {
    // One key's ten subscriptions to ten hosts (127.0.0.50–59) that hold the challenge unanswered, as the attack on round two did.
    const holders = await Promise.all(Array.from({ length: 10 }, (_, i) => startWebhookReceiver({ host: `127.0.0.${50 + i}` })));
    const prompt = await startWebhookReceiver({ host: '127.0.0.70' });
    const never = new Promise<never>(() => {});
    for (const holder of holders) holder.verify = () => never;
    try {
      await subscribeVerified(service.url, bearer((await createKey(service.url, { name: 'prompt' })).key), prompt.url);
      const attacker = bearer((await createKey(service.url, { name: 'holders' })).key);
      for (const holder of holders) await subscribe(service.url, attacker, holder.url);
      // A third of the window of ten (WEBHOOK_CONCURRENCY) is held by their challenges; the rest wait their turn.
      await vi.waitFor(() => expect(holders.filter((holder) => holder.verifications.length > 0)).toHaveLength(3), SETTLED);
      const submitted = performance.now();
      await submitScore(service.url, { game: 'demo', initials: 'HLD', value: 3 });
      await prompt.waitFor(1);
      expect(performance.now() - submitted).toBeLessThan(1_000);
      expect(holders.filter((holder) => holder.verifications.length > 0)).toHaveLength(3);
    } finally {
      await Promise.all([...holders, prompt].map((receiver) => receiver.close()));
    }
  });
});

describe('receivers on many new hosts that echo their challenge, then hold every event', () => {
  /** The default send timeout (10 s): a held event delivery holds its place that long. */
  const service = useTestServer({ env: MANY_RECEIVERS });

  it('hold at most a third of the window from their first event on: a receiver that has answered before gets the next score within a second', async () => {
    const prompt = await startWebhookReceiver({ host: '127.0.0.90' });
    // Ten hosts (127.0.0.100–109) new to the service, agreed to, never answering an event: a fresh set such as an attacker can make every few seconds.
    const holders = await Promise.all(Array.from({ length: 10 }, (_, i) => startWebhookReceiver({ host: `127.0.0.${100 + i}` })));
    const never = new Promise<number>(() => {});
    for (const holder of holders) holder.respond = () => never;
    try {
      await subscribeVerified(service.url, bearer((await createKey(service.url, { name: 'prompt' })).key), prompt.url);
      await submitScore(service.url, { game: 'demo', initials: 'ONE', value: 1 });
      await prompt.waitFor(1);
      const attacker = bearer((await createKey(service.url, { name: 'fresh holders' })).key);
      for (const holder of holders) await subscribeVerified(service.url, attacker, holder.url);
      // Their first events arrive and are held.
      await submitScore(service.url, { game: 'demo', initials: 'TWO', value: 2 });
      await prompt.waitFor(2);
      await vi.waitFor(() => expect(holders.filter((holder) => holder.arrived > 0).length).toBeGreaterThanOrEqual(3), SETTLED);
      const submitted = performance.now();
      await submitScore(service.url, { game: 'demo', initials: 'THR', value: 3 });
      await prompt.waitFor(3);
      expect(performance.now() - submitted).toBeLessThan(1_000);
      expect(holders.filter((holder) => holder.arrived > 0)).toHaveLength(3);
    } finally {
      await Promise.all([...holders, prompt].map((receiver) => receiver.close()));
    }
  });
});

describe('receivers that answer every event just slowly enough, on many hosts', () => {
  const service = useTestServer({ env: { ...MANY_RECEIVERS, RATE_LIMIT_SCORES_PER_MINUTE: '1000' } });

  it('answers taking 4.5 s (under half the timeout) prove nothing: after one such round, a proven receiver gets each score within a second again', { timeout: 40_000 }, async () => {
    const prompt = await startWebhookReceiver({ host: '127.0.0.10' });
    // One key's ten subscriptions on five hosts (127.0.1.10–14) that answer every event after 4.5 s, as the second attack on the fixes did.
    const slow = await Promise.all(Array.from({ length: 5 }, (_, i) => startWebhookReceiver({ host: `127.0.1.${10 + i}` })));
    // Quick to their first event (proven), then 4.5 s to every later one.
    for (const receiver of slow) receiver.respond = (_attempt, index) => (index === 0 ? 204 : new Promise((resolve) => setTimeout(() => resolve(204), 4_500)));
    try {
      await subscribeVerified(service.url, bearer((await createKey(service.url, { name: 'prompt' })).key), prompt.url);
      await submitScore(service.url, { game: 'demo', initials: 'PRV', value: 0 });
      await prompt.waitFor(1);
      const attacker = bearer((await createKey(service.url, { name: 'slow answers' })).key);
      for (const receiver of slow) for (const path of ['a', 'b']) await subscribeVerified(service.url, attacker, `${receiver.url}/${path}`);
      await submitScore(service.url, { game: 'demo', initials: 'QCK', value: 1 });
      await Promise.all(slow.map((receiver) => receiver.waitFor(2)));
      await prompt.waitFor(2);
      // Their first slow round holds the window once (one timeout's worth, as DECISIONS' one receiver would hold its own); then they are not proven.
      const delays: number[] = [];
      for (let score = 2; score <= 9; score++) {
        const submitted = performance.now();
        await submitScore(service.url, { game: 'demo', initials: 'SLO', value: score });
        await prompt.waitFor(score + 1);
        delays.push(performance.now() - submitted);
        await new Promise((resolve) => setTimeout(resolve, 1_000 - Math.min(1_000, performance.now() - submitted)));
      }
      expect(delays.slice(-4).every((delay) => delay < 1_000), `delays ${delays.map(Math.round).join(', ')} ms`).toBe(true);
    } finally {
      await Promise.all([prompt, ...slow].map((receiver) => receiver.close()));
    }
  });
});
