import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import type { Server } from './processes.ts';

/** The benchmark's requests, shared by `npm run bench` and `npm run bench:profile`. */
export interface Scenario {
  name: string;
  /** The status every answer must have; anything else counts as an error. */
  expect: number;
  /** A read whose every answer has the body of the first: any other body counts as an error. */
  sameBody?: true;
  request: (target: Target) => autocannon.Request;
}

export interface Target {
  server: Server;
  /** The database the server uses, for its statement count; none for the ceiling (or PGlite). */
  database?: string;
  taskId: string;
  taskTag: string;
  replayKey: string;
}

let clientCounter = 0;
function nextClientAddress(): string {
  clientCounter = (clientCounter + 1) % 60_000;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
}

const SCORE = JSON.stringify({ game: 'demo', initials: 'BEN', value: 4242 });
const json = { 'content-type': 'application/json' };

export const scenarios: Scenario[] = [
  { name: 'health', expect: 200, sameBody: true, request: () => ({ method: 'GET', path: '/api/health' }) },
  { name: 'get-task', expect: 200, sameBody: true, request: (t) => ({ method: 'GET', path: `/api/tasks/${t.taskId}` }) },
  { name: 'get-task-304', expect: 304, sameBody: true, request: (t) => ({ method: 'GET', path: `/api/tasks/${t.taskId}`, headers: { 'if-none-match': t.taskTag } }) },
  { name: 'list-tasks', expect: 200, sameBody: true, request: () => ({ method: 'GET', path: '/api/tasks?limit=20' }) },
  {
    name: 'trpc-newest',
    expect: 200,
    sameBody: true,
    request: () => ({ method: 'GET', path: `/api/trpc/tasks.newest?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}` }),
  },
  {
    name: 'graphql-tasks',
    expect: 200,
    sameBody: true,
    // GraphQL's limit (60 a minute per client) is not configurable: spread the load over many client addresses.
    request: () => ({
      method: 'POST',
      path: '/api/graphql',
      headers: json,
      body: JSON.stringify({ query: '{ tasks(limit: 5) { id title } }' }),
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': nextClientAddress() } }),
    }),
  },
  { name: 'create-task', expect: 201, request: () => ({ method: 'POST', path: '/api/tasks', headers: json, body: JSON.stringify({ title: 'bench task' }) }) },
  {
    name: 'submit-score',
    expect: 201,
    request: () => ({
      method: 'POST',
      path: '/api/scores',
      headers: json,
      body: SCORE,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
    }),
  },
  {
    name: 'replay-score',
    expect: 201,
    request: (t) => ({ method: 'POST', path: '/api/scores', headers: { ...json, 'idempotency-key': t.replayKey }, body: SCORE }),
  },
];

/** Seeds a server with 150 tasks and 50 scores per game, and the task and replay key the scenarios ask for. */
export async function prepare(server: Server): Promise<Target> {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { method: 'POST', body, headers: { ...json, ...headers } }).then(async (response) => ({ response, body: await response.json() }));
  let taskId = '';
  for (let i = 0; i < 150; i++) taskId = ((await post('/api/tasks', JSON.stringify({ title: `seed ${i}` }))).body as { id: string }).id;
  for (const game of ['toppler', 'marble', 'stacker', 'runner', 'demo']) {
    for (let i = 0; i < 50; i++) await post('/api/scores', JSON.stringify({ game, initials: 'SED', value: 100 + i }), { 'idempotency-key': randomUUID() });
  }
  const taskTag = (await fetch(`${server.url}/api/tasks/${taskId}`)).headers.get('etag')!;
  const replayKey = `replay-${randomUUID()}`;
  await post('/api/scores', SCORE, { 'idempotency-key': replayKey });
  return { server, taskId, taskTag, replayKey };
}


/**
 * The body every answer of a `sameBody` scenario must have: one request made
 * before the load, which must get the scenario's status. A server that answers
 * something else under load (another route's answer, an error) shows as
 * errors, not as a fast row.
 */
export async function expectedBody(target: Target, scenario: Scenario): Promise<string> {
  const request = scenario.request(target);
  const prepared = typeof request.setupRequest === 'function' ? (request.setupRequest(request, {}) as autocannon.Request) : request;
  const response = await fetch(`${target.server.url}${prepared.path}`, {
    method: prepared.method,
    headers: prepared.headers as Record<string, string> | undefined,
    body: prepared.body as string | undefined,
  });
  const body = await response.text();
  if (response.status !== scenario.expect) throw new Error(`${scenario.name} on ${target.server.name}: ${response.status} instead of ${scenario.expect}: ${body.slice(0, 200)}`);
  return body;
}
