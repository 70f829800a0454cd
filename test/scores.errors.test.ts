import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from './support/db-rows.ts';
import { request } from './support/http.ts';
import { expectProblem } from './support/problem.ts';
import { postScore } from './support/scores-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

async function scoreCount(): Promise<number> {
  return (await rowsOf<{ n: number }>(server, sql`select count(*)::int as n from scores`))[0]!.n;
}

describe('POST /api/scores validation', () => {
  it.each([
    [{ game: 'toppler', initials: 'abc', value: 1 }, 'initials', 'Three capital letters, A–Z'],
    [{ game: 'toppler', initials: 'AB', value: 1 }, 'initials', 'Three capital letters, A–Z'],
    [{ game: 'toppler', initials: 'ABCD', value: 1 }, 'initials', 'Three capital letters, A–Z'],
    [{ game: 'toppler', initials: 'ÄBC', value: 1 }, 'initials', 'Three capital letters, A–Z'],
    [{ game: 'toppler', value: 1 }, 'initials', 'Three capital letters, A–Z'],
    [{ game: 'toppler', initials: 'ABC', value: 20001 }, 'value', 'At most 20000 for Tower Toppler'],
    [{ game: 'marble', initials: 'ABC', value: 3600001 }, 'value', 'At most 3600000 for Marble Maze'],
    [{ game: 'stacker', initials: 'ABC', value: 501 }, 'value', 'At most 500 for Stacker'],
    [{ game: 'runner', initials: 'ABC', value: 1000001 }, 'value', 'At most 1000000 for Starfield Runner'],
    [{ game: 'demo', initials: 'ABC', value: 1000001 }, 'value', 'At most 1000000 for Lab demo'],
  ])('%j → 422 at %s: %s, nothing stored', async (body, path, message) => {
    const before = await scoreCount();
    const problem = expectProblem(await postScore(server.url, body), server.baseUrl, 'validation', 422, '/api/scores');
    expect(problem.errors).toEqual([{ path, message }]);
    expect(await scoreCount()).toBe(before);
  });

  it('reports every failing field at once', async () => {
    const problem = expectProblem(await postScore(server.url, { game: 'stacker', initials: 'x', value: 9999 }), server.baseUrl, 'validation', 422, '/api/scores');
    expect(problem.errors).toEqual([
      { path: 'initials', message: 'Three capital letters, A–Z' },
      { path: 'value', message: 'At most 500 for Stacker' },
    ]);
  });

  it.each([
    [{ game: 'tetris', initials: 'ABC', value: 1 }, 'game'],
    [{ initials: 'ABC', value: 1 }, 'game'],
    [{ game: 'toppler', initials: 'ABC', value: -1 }, 'value'],
    [{ game: 'toppler', initials: 'ABC', value: 1.5 }, 'value'],
    [{ game: 'toppler', initials: 'ABC', value: '10' }, 'value'],
    [{ game: 'toppler', initials: 'ABC' }, 'value'],
  ])('%j → 422 at %s', async (body, path) => {
    const problem = expectProblem(await postScore(server.url, body), server.baseUrl, 'validation', 422, '/api/scores');
    expect(problem.errors?.map((entry) => entry.path)).toEqual([path]);
  });

  it('rejects unknown fields', async () => {
    const problem = expectProblem(await postScore(server.url, { game: 'demo', initials: 'ABC', value: 1, verified: true }), server.baseUrl, 'validation', 422, '/api/scores');
    expect(problem.errors).toEqual([{ path: 'verified', message: 'Unknown field' }]);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await request(`${server.url}/api/scores`, { method: 'POST', body: '{', headers: { 'Idempotency-Key': 'not-json' } });
    expectProblem(response, server.baseUrl, 'bad-request', 400, '/api/scores');
  });
});

describe('the Idempotency-Key header', () => {
  const valid = { game: 'demo', initials: 'KEY', value: 5 };

  it('missing → 400 idempotency-key-missing, before the body is judged', async () => {
    for (const body of ['{"bad": true}', '{ not json', '[]']) {
      const response = await request(`${server.url}/api/scores`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expectProblem(response, server.baseUrl, 'idempotency-key-missing', 400, '/api/scores');
    }
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['256 characters', 'k'.repeat(256)],
    ['an inner space', 'two words'],
    ['a control character', 'tab\there'],
    ['an empty quoted string', '""'],
    ['non-ASCII', 'clé'],
  ])('%s → 400', async (_, key) => {
    const response = await postScore(server.url, valid, { 'Idempotency-Key': key });
    expectProblem(response, server.baseUrl, 'idempotency-key-missing', 400, '/api/scores');
  });

  it.each([
    ['255 characters', 'k'.repeat(255)],
    ['surrounding spaces', '  spaced-key-1  '],
    ['the quoted form', '"quoted-key-1"'],
    ['punctuation', '!#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
  ])('%s is accepted', async (_, key) => {
    expect((await postScore(server.url, valid, { 'Idempotency-Key': key })).status).toBe(201);
  });

  it('the quoted and the bare form name the same key', async () => {
    const first = await postScore(server.url, valid, { 'Idempotency-Key': 'same-key-2' });
    const second = await postScore(server.url, valid, { 'Idempotency-Key': '"same-key-2"' });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
  });
});

describe('GET /api/scores validation', () => {
  it.each([
    ['game=tetris', 'game'],
    ['', 'game'],
    ['game=demo&limit=0', 'limit'],
    ['game=demo&limit=51', 'limit'],
    ['game=demo&limit=ten', 'limit'],
  ])('?%s → 422 at %s', async (query, path) => {
    const problem = expectProblem(await request(`${server.url}/api/scores?${query}`), server.baseUrl, 'validation', 422, '/api/scores');
    expect(problem.errors?.map((entry) => entry.path)).toEqual([path]);
  });
});
