import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { cpuSeconds, startServer } from './processes.ts';
import { prepare, scenarios, type Target } from './scenarios.ts';

/**
 * `npm run bench:ab -- --scenario get-task --b LOG_LEVEL=warn`: two servers —
 * two builds (`--a-entry`, `--b-entry`: a compiled main.js, or a .ts entry run
 * through tsx such as the hand-written reference) or two settings (`--a`,
 * `--b`: NAME=value,…) — each on a fresh PostgreSQL database, driven in turn
 * for `--seconds` per round, A B then B A, and the CPU µs per request of each
 * and their ratio reported per round and as medians. The machine drifts by
 * tens of percent within minutes: only a paired comparison like this tells a
 * change of a few percent. `--pin 0` pins both servers (all their threads) to
 * that core and the load to the others, which steadies it further.
 */
const { values: options } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'health' },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    'a-entry': { type: 'string', default: 'dist/main.js' },
    'b-entry': { type: 'string', default: 'dist/main.js' },
    pin: { type: 'string' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const scenario = scenarios.find((candidate) => candidate.name === options.scenario);
if (!scenario) throw new Error(`no scenario ${options.scenario}: one of ${scenarios.map((candidate) => candidate.name).join(', ')}`);
const seconds = Number(options.seconds);

const settings = (text: string) =>
  Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );

const admin = postgres(options['database-url'], { max: 1, onnotice: () => {} });

async function start(name: 'a' | 'b', entry: string, env: Record<string, string>): Promise<Target> {
  const database = `lab_bench_ab_${name}`;
  await admin.unsafe(`drop database if exists ${database} with (force)`);
  await admin.unsafe(`create database ${database}`);
  const url = new URL(options['database-url']);
  url.pathname = `/${database}`;
  // A TypeScript entry (the reference) does not migrate; the service's migrations give it its tables.
  if (entry.endsWith('.ts')) {
    const migrated = await openDatabase(loadConfig({ DATABASE_URL: url.toString() }).database);
    await migrated.migrate();
    await migrated.close();
  }
  const server = await startServer(name.toUpperCase(), entry, {
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'info',
    RATE_LIMIT_TASK_WRITES_ANON: '100000000',
    RATE_LIMIT_SCORES_PER_MINUTE: '100000000',
    JWT_SECRET: 'bench-signing-secret-0123456789abcdef',
    TRUST_PROXY: 'true',
    ...env,
  });
  if (options.pin !== undefined) execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', options.pin, String(server.child.pid)], { stdio: 'ignore' });
  return prepare(server);
}

async function drive(target: Target, duration: number): Promise<{ cpuUs: number; rps: number }> {
  const pid = target.server.child.pid!;
  const before = cpuSeconds(pid);
  const result = await autocannon({ url: target.server.url, connections: Number(options.connections), duration, requests: [scenario!.request(target)] });
  const expected = (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[String(scenario!.expect)]?.count ?? 0;
  if (expected !== result.requests.total) throw new Error(`${target.server.name}: ${result.requests.total - expected} of ${result.requests.total} answers were not ${scenario!.expect}`);
  return { cpuUs: ((cpuSeconds(pid) - before) * 1e6) / result.requests.total, rps: result.requests.total / duration };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

if (options.pin !== undefined) {
  const cores = Number(execFileSync('nproc', { encoding: 'utf8' }));
  const others = Array.from({ length: cores }, (_, core) => core).filter((core) => String(core) !== options.pin);
  if (others.length > 0) execFileSync('taskset', ['--pid', '--cpu-list', others.join(','), String(process.pid)], { stdio: 'ignore' });
}
const a = await start('a', options['a-entry'], settings(options.a));
const b = await start('b', options['b-entry'], settings(options.b));
try {
  await drive(a, 2);
  await drive(b, 2);
  const rounds: { a: number; b: number }[] = [];
  for (let round = 0; round < Number(options.rounds); round++) {
    const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
    const one = await drive(first, seconds);
    const other = await drive(second, seconds);
    const [ofA, ofB] = first === a ? [one, other] : [other, one];
    rounds.push({ a: ofA.cpuUs, b: ofB.cpuUs });
    process.stdout.write(
      `round ${round + 1}: A ${ofA.cpuUs.toFixed(1)} µs (${Math.round(ofA.rps)}/s)  B ${ofB.cpuUs.toFixed(1)} µs (${Math.round(ofB.rps)}/s)  B/A ${(ofB.cpuUs / ofA.cpuUs).toFixed(3)}\n`,
    );
  }
  process.stdout.write(
    `${scenario.name}: median CPU µs/request A ${median(rounds.map((r) => r.a)).toFixed(1)}, B ${median(rounds.map((r) => r.b)).toFixed(1)}; median B/A ${median(rounds.map((r) => r.b / r.a)).toFixed(3)}\n`,
  );
} finally {
  await Promise.all([a.server.stop(), b.server.stop()]);
  await admin.end();
}
