import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { startServer } from './processes.ts';
import { prepare, scenarios } from './scenarios.ts';

/**
 * `npm run bench:profile -- --scenario get-task [--reference]`: runs one
 * scenario against the service (or the hand-written reference) under
 * `node --cpu-prof`, then prints where its CPU time went — by function
 * (self time) and by where the code lives (our src, each package, Node) —
 * in microseconds per request over the measured window (the main thread
 * only: not GC helper threads nor libuv's pool). What `npm run bench` measures, explained.
 */
const { values: options } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'health' },
    reference: { type: 'boolean', default: false },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    top: { type: 'string', default: '25' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds of the system's monotonic clock, as process.hrtime here. */
  startTime: number;
  timeDeltas: number[];
}

/** The measured window, in the profile's clock. */
interface Window {
  fromUs: number;
  toUs: number;
  requests: number;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where a frame's code lives: a package, our source, Node itself, or V8's own work. */
function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  if (url.startsWith('node:')) return 'node';
  const ours = /\/(dist|src|bench)\/(.*)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]!.split('/')[0]}` : url;
}

/** Self time inside the measured window, per request, by place and by function; idle time left out. */
function summarise(profile: Profile, window: Window, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByFunction = new Map<string, number>();
  const selfByPlace = new Map<string, number>();
  let busyUs = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index]!;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[index + 1] ?? 0;
    if (at < window.fromUs || at > window.toUs) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    busyUs += weight;
    const file = url.replace(/^.*\/(node_modules|dist|src|bench)\//, '$1/');
    const name = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + weight);
    const place = placeOf(url, functionName);
    selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + weight);
  });
  const perRequest = (us: number) => `${(us / window.requests).toFixed(1).padStart(6)} µs  ${((us * 100) / busyUs).toFixed(1).padStart(5)} %`;
  const ranked = (weights: Map<string, number>) => [...weights].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `main thread busy ${perRequest(busyUs)} per request (${window.requests} requests)`,
    '',
    'self time per request by place:',
    ...ranked(selfByPlace).map(([place, us]) => `  ${perRequest(us)}  ${place}`),
    '',
    'self time per request by function:',
    ...ranked(selfByFunction).map(([name, us]) => `  ${perRequest(us)}  ${name}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const scenario = scenarios.find((candidate) => candidate.name === options.scenario);
  if (!scenario) throw new Error(`no scenario ${options.scenario}: one of ${scenarios.map((candidate) => candidate.name).join(', ')}`);
  const admin = postgres(options['database-url'], { max: 1, onnotice: () => {} });
  await admin.unsafe('drop database if exists lab_bench_profile with (force)');
  await admin.unsafe('create database lab_bench_profile');
  const url = new URL(options['database-url']);
  url.pathname = '/lab_bench_profile';
  const databaseUrl = url.toString();
  if (options.reference) {
    const { loadConfig } = await import('../src/config.ts');
    const { openDatabase } = await import('../src/db/client.ts');
    const migrated = await openDatabase(loadConfig({ DATABASE_URL: databaseUrl }).database);
    await migrated.migrate();
    await migrated.close();
  }
  const directory = mkdtempSync(join(tmpdir(), 'lab-api-profile-'));
  const server = await startServer(
    options.reference ? 'hand-written' : 'service',
    options.reference ? 'bench/reference/hand-written.ts' : 'dist/main.js',
    {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      RATE_LIMIT_TASK_WRITES_ANON: '100000000',
      RATE_LIMIT_SCORES_PER_MINUTE: '100000000',
      JWT_SECRET: 'bench-signing-secret-0123456789abcdef',
      TRUST_PROXY: 'true',
    },
    '/api/health',
    ['--cpu-prof', `--cpu-prof-dir=${directory}`],
  );
  let window: Window;
  try {
    const target = await prepare(server);
    const duration = Number(options.duration);
    await autocannon({ url: server.url, connections: Number(options.connections), duration: 2, requests: [scenario.request(target)] });
    const fromUs = monotonicUs();
    const result = await autocannon({ url: server.url, connections: Number(options.connections), duration, requests: [scenario.request(target)] });
    window = { fromUs, toUs: monotonicUs(), requests: result.requests.total };
    process.stdout.write(`${scenario.name} on ${server.name}: ${Math.round(result.requests.total / duration)} req/s while profiled\n\n`);
  } finally {
    await server.stop();
    await admin.unsafe('drop database if exists lab_bench_profile with (force)');
    await admin.end();
  }
  const [file] = readdirSync(directory).filter((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('the server wrote no profile');
  process.stdout.write(`${summarise(JSON.parse(readFileSync(join(directory, file), 'utf8')) as Profile, window, Number(options.top))}\n`);
  rmSync(directory, { recursive: true, force: true });
}

await main();
