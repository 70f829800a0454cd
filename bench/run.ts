import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { cpuSeconds, peakRssMiB, resetPeakRss, root, startServer, type Server } from './processes.ts';

/**
 * `npm run bench`: the service, a hand-written node:http + postgres server
 * doing the same SQL work, and a fixed-JSON ceiling, driven side by side by
 * autocannon from this process. Never part of `npm test`.
 */
const { values: options } = parseArgs({
  options: {
    embedded: { type: 'boolean', default: false },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const duration = Number(options.duration);
const warmup = Number(options.warmup);
const connections = Number(options.connections);

interface Scenario {
  name: string;
  /** The status every answer must have; anything else counts as an error. */
  expect: number;
  request: (target: Target) => autocannon.Request;
}

interface Target {
  server: Server;
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

const scenarios: Scenario[] = [
  { name: 'health', expect: 200, request: () => ({ method: 'GET', path: '/api/health' }) },
  { name: 'get-task', expect: 200, request: (t) => ({ method: 'GET', path: `/api/tasks/${t.taskId}` }) },
  { name: 'get-task-304', expect: 304, request: (t) => ({ method: 'GET', path: `/api/tasks/${t.taskId}`, headers: { 'if-none-match': t.taskTag } }) },
  { name: 'list-tasks', expect: 200, request: () => ({ method: 'GET', path: '/api/tasks?limit=20' }) },
  {
    name: 'trpc-newest',
    expect: 200,
    request: () => ({ method: 'GET', path: `/api/trpc/tasks.newest?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}` }),
  },
  {
    name: 'graphql-tasks',
    expect: 200,
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

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuMsPerRequest: number;
  peakRssMiB: number;
}

async function drive(target: Target, scenario: Scenario, seconds: number): Promise<Measurement> {
  const pid = target.server.child.pid!;
  resetPeakRss(pid);
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url: target.server.url, connections, duration: seconds, requests: [scenario.request(target)] });
  const cpu = cpuSeconds(pid) - cpuBefore;
  const expected = (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(scenario.expect)]?.count ?? 0;
  const total = result.requests.total;
  return {
    rps: Math.round(total / seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + Math.max(0, total - expected),
    cpuMsPerRequest: total > 0 ? (cpu * 1000) / total : 0,
    peakRssMiB: peakRssMiB(pid),
  };
}

async function freshDatabase(admin: postgres.Sql, name: string): Promise<string> {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const url = new URL(options['database-url']);
  url.pathname = `/${name}`;
  return url.toString();
}

async function prepare(server: Server): Promise<Target> {
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

const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '–');

async function main(): Promise<void> {
  const limits = {
    RATE_LIMIT_TASK_WRITES_ANON: '100000000',
    RATE_LIMIT_SCORES_PER_MINUTE: '100000000',
    JWT_SECRET: 'bench-signing-secret-0123456789abcdef',
    TRUST_PROXY: 'true',
  };
  const admin = postgres(options['database-url'], { max: 1, onnotice: () => {} });
  const serviceDatabase = options.embedded ? undefined : await freshDatabase(admin, 'lab_bench_service');
  const referenceDatabase = await freshDatabase(admin, 'lab_bench_reference');
  // The reference gets the service's own tables, through the service's migrations.
  const migrated = await openDatabase(loadConfig({ DATABASE_URL: referenceDatabase }).database);
  await migrated.migrate();
  await migrated.close();

  const service = await startServer('service', 'dist/main.js', {
    ...limits,
    ...(serviceDatabase ? { DATABASE_URL: serviceDatabase } : { PGLITE_DATA_DIR: 'memory://' }),
  });
  const handWritten = await startServer('hand-written', 'bench/reference/hand-written.ts', { DATABASE_URL: referenceDatabase });
  const ceiling = await startServer('ceiling', 'bench/reference/ceiling.ts', {});
  const targets = { service: await prepare(service), handWritten: await prepare(handWritten) };
  const ceilingTarget: Target = { server: ceiling, taskId: targets.service.taskId, taskTag: '', replayKey: '' };

  const rows: string[] = [];
  const header = '| scenario | service req/s | p50 ms | p99 ms | errors | CPU ms/req | peak RSS MiB | hand-written req/s | service ÷ hand-written | ceiling req/s | service ÷ ceiling |';
  const selected = scenarios.filter((scenario) => !options.only || options.only.split(',').includes(scenario.name));
  for (const scenario of selected) {
    const results: Record<string, Measurement> = {};
    for (const [name, target] of [['service', targets.service], ['handWritten', targets.handWritten], ['ceiling', ceilingTarget]] as const) {
      const probe = name === 'ceiling' ? { ...scenario, expect: 200, request: () => ({ method: 'GET' as const, path: '/' }) } : scenario;
      if (warmup > 0) await drive(target, probe, warmup);
      results[name] = await drive(target, probe, duration);
    }
    const s = results.service!;
    const failed = s.errors > 0 || results.handWritten!.errors > 0;
    rows.push(
      `| ${scenario.name}${failed ? ' **FAILED**' : ''} | ${s.rps} | ${s.p50} | ${s.p99} | ${s.errors} | ${s.cpuMsPerRequest.toFixed(3)} | ${s.peakRssMiB} | ${results.handWritten!.rps} | ${ratio(s.rps, results.handWritten!.rps)} | ${results.ceiling!.rps} | ${ratio(s.rps, results.ceiling!.rps)} |`,
    );
    process.stdout.write(`${rows.at(-1)}\n`);
  }

  await Promise.all([service.stop(), handWritten.stop(), ceiling.stop()]);
  await admin.end();

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const report = [
    `# Benchmark ${new Date().toISOString()}`,
    '',
    `Machine: ${machine}. Database: ${options.embedded ? 'embedded PGlite (service), PostgreSQL (hand-written)' : 'PostgreSQL'}.`,
    `Command: \`npm run bench -- --duration ${duration} --connections ${connections}${options.embedded ? ' --embedded' : ''}\`.`,
    '',
    header,
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  mkdirSync(`${root}/bench/results`, { recursive: true });
  const file = `${root}/bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
  writeFileSync(file, report);
  process.stdout.write(`\n${header}\n${rows.join('\n')}\n\nwritten to bench/results/${file.split('/').at(-1)}\n`);
}

await main();
