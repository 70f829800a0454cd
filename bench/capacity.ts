import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { cpuSeconds, startServer } from './processes.ts';

/**
 * `npm run bench:capacity -- [--seconds 20] [--connections 32] [--database-url …] [--pooled-url …]`:
 * one instance under a mixed load — of every ten requests six reads (task
 * lists, tRPC newest, leaderboard), two score submissions, one task
 * created, one GraphQL query — for docs/DEPLOY.md's sizing: requests per
 * second, the instance's CPU, and the PostgreSQL connections it holds while
 * it carries them (sampled from pg_stat_activity every 100 ms). With
 * `--pooled-url` (a PgBouncer in front of the same server, a `{database}`
 * placeholder for the database's name) the instance connects through it.
 */
const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '32' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'pooled-url': { type: 'string' },
  },
});

const json = { 'content-type': 'application/json' };
let client = 0;
const clientAddress = () => `10.9.${(++client >> 8) & 255}.${client & 255}`;

const admin = postgres(options['database-url'], { max: 1, onnotice: () => {} });
const name = `lab_capacity_${randomUUID().slice(0, 8)}`;
await admin.unsafe(`create database ${name}`);
const directUrl = new URL(options['database-url']);
directUrl.pathname = `/${name}`;
const serviceUrl = options['pooled-url'] ? options['pooled-url'].replace('{database}', name) : directUrl.toString();

const server = await startServer('service', 'dist/main.js', {
  DATABASE_URL: serviceUrl,
  DATABASE_DIRECT_URL: directUrl.toString(),
  JWT_SECRET: 'capacity-signing-secret-0123456789abcdef',
  TRUST_PROXY: 'true',
  RATE_LIMIT_TASK_WRITES_ANON: '1000000',
  RATE_LIMIT_SCORES_PER_MINUTE: '1000000',
  RATE_LIMIT_GRAPHQL_ANON: '1000000',
});
try {
  const withClient = (request: autocannon.Request): autocannon.Request => ({
    ...request,
    setupRequest: (prepared) => ({
      ...prepared,
      headers: { ...prepared.headers, 'x-forwarded-for': clientAddress(), ...(prepared.path === '/api/scores' ? { 'idempotency-key': randomUUID() } : {}) },
    }),
  });
  // A task read by id would soon be gone: the creates below trim the oldest beyond 200 (docs/spec/SPEC.md's retention).
  const reads: autocannon.Request[] = [
    { method: 'GET', path: '/api/tasks?limit=5' },
    { method: 'GET', path: '/api/tasks?limit=20' },
    { method: 'GET', path: `/api/trpc/tasks.newest?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}` },
    { method: 'GET', path: '/api/scores?game=demo' },
  ];
  const score: autocannon.Request = { method: 'POST', path: '/api/scores', headers: json, body: JSON.stringify({ game: 'demo', initials: 'CAP', value: 7 }) };
  const requests: autocannon.Request[] = [
    reads[0]!, reads[1]!, score, reads[2]!, reads[3]!,
    { method: 'POST', path: '/api/tasks', headers: json, body: JSON.stringify({ title: 'capacity task' }) },
    reads[0]!, score, reads[1]!,
    { method: 'POST', path: '/api/graphql', headers: json, body: JSON.stringify({ query: '{ tasks(limit: 5) { id title } }' }) },
  ];

  const held: number[] = [];
  const sampling = setInterval(() => {
    void admin`select count(*)::int as n from pg_stat_activity where datname = ${name}`.then(([row]) => held.push(row!.n));
  }, 100);
  const cpuBefore = cpuSeconds(server.child.pid!);
  const result = await autocannon({ url: server.url, connections: Number(options.connections), duration: Number(options.seconds), requests: requests.map(withClient) });
  const cpu = cpuSeconds(server.child.pid!) - cpuBefore;
  clearInterval(sampling);
  const statuses = result.statusCodeStats as Record<string, { count: number }>;
  const perSecond = result.requests.total / Number(options.seconds);
  const connections = Math.max(...held);
  console.log(
    JSON.stringify(
      {
        through: options['pooled-url'] ? 'pooler' : 'direct',
        requestsPerSecond: Math.round(perSecond),
        statuses: Object.fromEntries(Object.entries(statuses).map(([status, { count }]) => [status, count])),
        errors: result.errors + result.non2xx,
        latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
        cpuCoresBusy: Number((cpu / Number(options.seconds)).toFixed(2)),
        postgresConnections: { max: connections, mean: Number((held.reduce((a, b) => a + b, 0) / held.length).toFixed(1)) },
        requestsPerSecondPerConnection: Math.round(perSecond / connections),
      },
      null,
      2,
    ),
  );
} finally {
  await server.stop();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
