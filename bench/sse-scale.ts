import { Agent, get, request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { peakRssMiB, startServer } from './processes.ts';

/**
 * `npm run bench:sse`: K viewers on GET /api/scores/stream?game=demo, one
 * score a second for 10 s. Reports the time to open every stream, the delay
 * from each POST's 201 to each stream's board message, how many streams saw
 * every update, database transactions per second and the service's peak RSS.
 */
const { values: options } = parseArgs({
  options: {
    k: { type: 'string', default: '1000,10000' },
    seconds: { type: 'string', default: '10' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function run(k: number): Promise<string> {
  const admin = postgres(options['database-url'], { max: 1, onnotice: () => {} });
  await admin.unsafe('drop database if exists lab_bench_sse with (force)');
  await admin.unsafe('create database lab_bench_sse');
  const url = new URL(options['database-url']);
  url.pathname = '/lab_bench_sse';
  const service = await startServer('service', 'dist/main.js', {
    DATABASE_URL: url.toString(),
    SSE_STREAM_MS: '120000',
    // Every viewer connects from this one machine: one client as far as the per-client cap goes.
    SSE_MAX_STREAMS_PER_CLIENT: '1000000',
    RATE_LIMIT_SCORES_PER_MINUTE: '100000000',
    JWT_SECRET: 'bench-signing-secret-0123456789abcdef',
  });
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const arrivals: { at: number; latestCreatedAt: string }[][] = Array.from({ length: k }, () => []);
  const opened: Promise<void>[] = [];
  const started = performance.now();
  const requests: ReturnType<typeof get>[] = [];
  for (let i = 0; i < k; i++) {
    opened.push(
      new Promise((resolve, reject) => {
        const req = get(`${service.url}/api/scores/stream?game=demo&limit=3`, { agent }, (res) => {
          let buffered = '';
          let first = true;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let end: number;
            while ((end = buffered.indexOf('\n\n')) !== -1) {
              const frame = buffered.slice(0, end);
              buffered = buffered.slice(end + 2);
              if (first && frame.startsWith('event: board')) {
                first = false;
                resolve();
              }
              const latest = /"latest":\{[^}]*"createdAt":"([^"]+)"/.exec(frame)?.[1];
              if (latest) arrivals[i]!.push({ at: performance.now(), latestCreatedAt: latest });
            }
          });
        });
        req.on('error', reject);
        requests.push(req);
      }),
    );
  }
  await Promise.all(opened);
  const openMs = performance.now() - started;

  // An idle PostgreSQL backend publishes its counters up to 10 s late (PGSTAT_IDLE_INTERVAL):
  // let the queries of the opening reach the statistics before counting.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const transactions = async () => Number((await sql`select xact_commit + xact_rollback as n from pg_stat_database where datname = 'lab_bench_sse'`)[0]!.n);
  const before = await transactions();
  const windowStart = performance.now();
  const posted: { createdAt: string; at: number }[] = [];
  for (let second = 0; second < Number(options.seconds); second++) {
    const tick = performance.now();
    const score = await new Promise<{ createdAt: string }>((resolve, reject) => {
      const body = JSON.stringify({ game: 'demo', initials: 'SSE', value: 1000 + second });
      const req = request(`${service.url}/api/scores`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(text) as { createdAt: string }) : reject(new Error(`POST ${res.statusCode}: ${text}`))));
      });
      req.end(body);
    });
    posted.push({ createdAt: score.createdAt, at: performance.now() });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (performance.now() - tick))));
  }
  // Let the last poll reach everyone.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const seconds = (performance.now() - windowStart) / 1000;
  const transactionsPerSecond = (await transactions()) - before;

  const delays: number[] = [];
  let complete = 0;
  for (const streamArrivals of arrivals) {
    let sawAll = true;
    for (const score of posted) {
      const seen = streamArrivals.find((arrival) => arrival.latestCreatedAt >= score.createdAt);
      if (seen) delays.push(seen.at - score.at);
      else sawAll = false;
    }
    if (sawAll) complete++;
  }
  const rss = peakRssMiB(service.child.pid!);
  for (const req of requests) req.destroy();
  await sql.end();
  await service.stop();
  await admin.end();
  return `| ${k} | ${(openMs / 1000).toFixed(1)} s | ${Math.round(percentile(delays, 50))} ms | ${Math.round(percentile(delays, 99))} ms | ${complete} / ${k} | ${(transactionsPerSecond / seconds).toFixed(1)} | ${rss} MiB |`;
}

const header = '| streams | time to open all | p50 delay | p99 delay | streams with every update | DB transactions/s | peak RSS |\n|---|---|---|---|---|---|---|';
process.stdout.write(`${header}\n`);
for (const k of options.k.split(',').map(Number)) process.stdout.write(`${await run(k)}\n`);
