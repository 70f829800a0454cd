import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { storedCount } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { expectProblem } from './support/problem.ts';
import { postScore } from './support/scores-client.ts';
import { openSse, type SseReader } from './support/sse-reader.ts';
import { useTestServer } from './support/test-server.ts';

const MAX_STREAMS = 3;

const server = useTestServer({ env: { TRUST_PROXY: 'true', SSE_MAX_STREAMS_PER_CLIENT: String(MAX_STREAMS), SSE_STREAM_MS: '60000' } });

const streamUrl = () => `${server.url}/api/scores/stream?game=demo`;

describe('open score streams per client', () => {
  it(`the ${MAX_STREAMS + 1}th stream of one client → 429 rate-limited with Retry-After: 5; others are not affected; closing one makes room`, async () => {
    const client = { 'X-Forwarded-For': '203.0.113.50' };
    const open: SseReader[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS; i++) {
        const stream = await openSse(streamUrl(), client);
        expect(stream.status).toBe(200);
        open.push(stream);
      }
      const refused = await request(streamUrl(), { headers: client });
      const problem = expectProblem(refused, server.baseUrl, 'rate-limited', 429, '/api/scores/stream');
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(problem.detail).toContain(String(MAX_STREAMS));

      const neighbour = await openSse(streamUrl(), { 'X-Forwarded-For': '203.0.113.51' });
      expect(neighbour.status).toBe(200);
      open.push(neighbour);

      open.shift()!.close();
      await vi.waitFor(() => expect(server.app.openStreams.count).toBe(MAX_STREAMS), { timeout: 5000, interval: 20 });
      const again = await openSse(streamUrl(), client);
      expect(again.status).toBe(200);
      open.push(again);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('a key is one client, wherever it connects from', async () => {
    const key = await createKey(server.url, { name: 'viewer' });
    const open: SseReader[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS; i++) {
        const stream = await openSse(streamUrl(), { ...bearer(key.key), 'X-Forwarded-For': `198.51.100.${i + 1}` });
        expect(stream.status).toBe(200);
        open.push(stream);
      }
      const refused = await request(streamUrl(), { headers: { ...bearer(key.key), 'X-Forwarded-For': '198.51.100.99' } });
      expect(refused.status).toBe(429);
    } finally {
      for (const stream of open) stream.close();
    }
  });
});

describe('hostile score bodies', () => {
  it('NUL in initials → 422 at initials with the NUL message, nothing stored', async () => {
    const before = await storedCount(server, 'scores');
    const response = await postScore(server.url, { game: 'demo', initials: 'A\u0000B', value: 1 });
    expect(expectProblem(response, server.baseUrl, 'validation', 422, '/api/scores').errors).toEqual([{ path: 'initials', message: 'Remove the NUL character' }]);
    expect(await storedCount(server, 'scores')).toBe(before);
  });

  it('a body nested 5000 deep → 400 bad-request, after the rate limit and the Idempotency-Key', async () => {
    const deep = `{"game":"demo","initials":"ABC","value":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const withoutKey = await request(`${server.url}/api/scores`, { method: 'POST', body: deep, headers: { 'content-type': 'application/json' } });
    expectProblem(withoutKey, server.baseUrl, 'idempotency-key-missing', 400, '/api/scores');
    const response = await request(`${server.url}/api/scores`, { method: 'POST', body: deep, headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() } });
    expectProblem(response, server.baseUrl, 'bad-request', 400, '/api/scores');
    expect(response.headers.get('ratelimit')).toMatch(/^"score-submit";r=\d+;t=\d+$/);
  });

  it('413 counts and carries the RateLimit headers the document promises', async () => {
    const response = await request(`${server.url}/api/scores`, {
      method: 'POST',
      body: `{"game":"demo","initials":"${'A'.repeat(70_000)}","value":1}`,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() },
    });
    expectProblem(response, server.baseUrl, 'payload-too-large', 413, '/api/scores');
    expect(response.headers.get('ratelimit-policy')).toMatch(/^"score-submit";q=\d+;w=60$/);
    expect(response.headers.get('ratelimit')).toMatch(/^"score-submit";r=\d+;t=\d+$/);
  });
});
