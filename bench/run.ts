import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { cpuSeconds, peakRssMiB, resetPeakRss, root, rssMiB, startServer } from './processes.ts';
import { expectedBody, prepare, scenarios, type Scenario, type Target } from './scenarios.ts';
import { openStatementCounter, type StatementCounter } from './statement-counter.ts';

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

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuUsPerRequest: number;
  statementsPerRequest: number | undefined;
  bytesPerResponse: number;
  peakRssMiB: number;
}

async function drive(target: Target, scenario: Scenario, seconds: number, statements: StatementCounter): Promise<Measurement> {
  const pid = target.server.child.pid!;
  resetPeakRss(pid);
  const statementsBefore = target.database ? await statements.count(target.database) : undefined;
  const cpuBefore = cpuSeconds(pid);
  const body = scenario.sameBody ? await expectedBody(target, scenario) : undefined;
  const result = await autocannon({
    url: target.server.url,
    connections,
    duration: seconds,
    requests: [scenario.request(target)],
    ...(body === undefined ? {} : { verifyBody: (received) => String(received ?? '') === body }),
  });
  const cpu = cpuSeconds(pid) - cpuBefore;
  const statementsAfter = target.database ? await statements.count(target.database) : undefined;
  const expected = (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(scenario.expect)]?.count ?? 0;
  const total = result.requests.total;
  const perRequest = (amount: number) => (total > 0 ? amount / total : 0);
  return {
    rps: Math.round(total / seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + Math.max(0, total - expected) + result.mismatches,
    cpuUsPerRequest: perRequest(cpu * 1e6),
    statementsPerRequest: statementsBefore === undefined || statementsAfter === undefined ? undefined : perRequest(statementsAfter - statementsBefore),
    // Status line, headers and body as they came off the socket.
    bytesPerResponse: perRequest(result.throughput.total),
    peakRssMiB: peakRssMiB(pid),
  };
}

/** Two runs of equal length as one: sums per request, the mean p50 and the worse p99. */
function combined(a: Measurement, b: Measurement): Measurement {
  const weighted = (of: (m: Measurement) => number) => (of(a) * a.rps + of(b) * b.rps) / Math.max(1, a.rps + b.rps);
  const statements = a.statementsPerRequest === undefined || b.statementsPerRequest === undefined ? undefined : weighted((m) => m.statementsPerRequest!);
  return {
    rps: Math.round((a.rps + b.rps) / 2),
    p50: (a.p50 + b.p50) / 2,
    p99: Math.max(a.p99, b.p99),
    errors: a.errors + b.errors,
    cpuUsPerRequest: weighted((m) => m.cpuUsPerRequest),
    statementsPerRequest: statements,
    bytesPerResponse: weighted((m) => m.bytesPerResponse),
    peakRssMiB: Math.max(a.peakRssMiB, b.peakRssMiB),
  };
}

async function freshDatabase(admin: postgres.Sql, name: string): Promise<string> {
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const url = new URL(options['database-url']);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The database a server was given, by name, for its statement count. */
const databaseName = (url: string | undefined) => (url ? new URL(url).pathname.slice(1) : undefined);

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? (a / b).toFixed(2) : '–');
const fixed = (value: number | undefined, digits: number) => (value === undefined ? '–' : value.toFixed(digits));

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

  // The service logs at info, as in production: one line per request, measured with it on.
  const service = await startServer('service', 'dist/main.js', {
    ...limits,
    LOG_LEVEL: 'info',
    ...(serviceDatabase ? { DATABASE_URL: serviceDatabase } : { PGLITE_DATA_DIR: 'memory://' }),
  });
  const handWritten = await startServer('hand-written', 'bench/reference/hand-written.ts', { DATABASE_URL: referenceDatabase });
  const ceiling = await startServer('ceiling', 'bench/reference/ceiling.ts', {});
  const targets = {
    service: { ...(await prepare(service)), database: databaseName(serviceDatabase) },
    handWritten: { ...(await prepare(handWritten)), database: databaseName(referenceDatabase) },
  };
  const ceilingTarget: Target = { server: ceiling, taskId: targets.service.taskId, taskTag: '', replayKey: '' };
  const statements = await openStatementCounter(admin, options['database-url']);
  const idle = `Resident memory after seeding, before load: service ${Math.round(rssMiB(service.child.pid!))} MiB, hand-written ${Math.round(rssMiB(handWritten.child.pid!))} MiB.`;
  process.stdout.write(`${idle}\n`);

  const rows: string[] = [];
  const header = [
    'scenario', 'service req/s', 'hand-written req/s', '÷', 'service p50 / p99 ms', 'hand-written p50 / p99 ms',
    'service CPU µs/req', 'hand-written CPU µs/req', '÷', 'service statements/req', 'hand-written statements/req',
    'service bytes/resp', 'hand-written bytes/resp', 'service peak RSS MiB', 'hand-written peak RSS MiB', 'ceiling req/s', 'errors',
  ];
  const selected = scenarios.filter((scenario) => !options.only || options.only.split(',').includes(scenario.name));
  for (const scenario of selected) {
    if (warmup > 0) {
      await drive(targets.service, scenario, warmup, statements);
      await drive(targets.handWritten, scenario, warmup, statements);
    }
    // Service, reference, reference, service — half the time each: the machine's
    // drift over the minute weighs on both alike.
    const half = duration / 2;
    const serviceFirst = await drive(targets.service, scenario, half, statements);
    const handWrittenFirst = await drive(targets.handWritten, scenario, half, statements);
    const handWrittenSecond = await drive(targets.handWritten, scenario, half, statements);
    const serviceSecond = await drive(targets.service, scenario, half, statements);
    const s = combined(serviceFirst, serviceSecond);
    const h = combined(handWrittenFirst, handWrittenSecond);
    const ceilingProbe = { ...scenario, expect: 200, request: () => ({ method: 'GET' as const, path: '/' }) };
    const results = { ceiling: await drive(ceilingTarget, ceilingProbe, duration, statements) };
    const failed = s.errors > 0 || h.errors > 0;
    const cells = [
      `${scenario.name}${failed ? ' **FAILED**' : ''}`, s.rps, h.rps, ratio(s.rps, h.rps), `${s.p50} / ${s.p99}`, `${h.p50} / ${h.p99}`,
      Math.round(s.cpuUsPerRequest), Math.round(h.cpuUsPerRequest), ratio(s.cpuUsPerRequest, h.cpuUsPerRequest),
      fixed(s.statementsPerRequest, 2), fixed(h.statementsPerRequest, 2),
      Math.round(s.bytesPerResponse), Math.round(h.bytesPerResponse), s.peakRssMiB, h.peakRssMiB, results.ceiling!.rps, s.errors + h.errors,
    ];
    rows.push(`| ${cells.join(' | ')} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
  const table = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows].join('\n');

  await Promise.all([service.stop(), handWritten.stop(), ceiling.stop()]);
  await statements.close();
  await admin.end();

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const report = [
    `# Benchmark ${new Date().toISOString()}`,
    '',
    `Machine: ${machine}. Database: ${options.embedded ? 'embedded PGlite (service), PostgreSQL (hand-written)' : 'PostgreSQL'}.`,
    `Command: \`npm run bench -- --duration ${duration} --connections ${connections}${options.embedded ? ' --embedded' : ''}\`.`,
    idle,
    '',
    table,
    '',
  ].join('\n');
  mkdirSync(`${root}/bench/results`, { recursive: true });
  const file = `${root}/bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
  writeFileSync(file, report);
  process.stdout.write(`\n${idle}\n\n${table}\n\nwritten to bench/results/${file.split('/').at(-1)}\n`);
}

await main();
