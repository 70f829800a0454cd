import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root, rssMiB } from './processes.ts';

/**
 * `npm run bench:startup`: the start-up and memory budgets of issue 13, on
 * the compiled service (`node dist/main.js`). For each storage: the time
 * from spawning the process to the first 200 of GET /api/health, and the
 * resident memory after it has then sat idle for a few seconds. Medians of
 * several runs; a table for docs/performance.md.
 */
const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'idle-seconds': { type: 'string', default: '5' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const runs = Number(options.runs);
const idleMs = Number(options['idle-seconds']) * 1000;

interface Sample {
  startMs: number;
  idleRssMiB: number;
}

async function once(env: Record<string, string>, port: number): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', JWT_SECRET: 'bench-signing-secret-0123456789abcdef', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let startMs = NaN;
  for (;;) {
    if (child.exitCode !== null) throw new Error('the service exited before answering');
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then((response) => response.ok, () => false);
    if (ok) {
      startMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const idleRssMiB = rssMiB(child.pid!);
  child.kill('SIGTERM');
  await exited;
  return { startMs, idleRssMiB };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(name: string, environment: () => Record<string, string>, cleanup = () => {}): Promise<string> {
  const samples: Sample[] = [];
  for (let run = 0; run < runs; run++) {
    samples.push(await once(environment(), 39_000 + run));
    cleanup();
  }
  const starts = samples.map((sample) => sample.startMs);
  const rss = samples.map((sample) => sample.idleRssMiB);
  return `| ${name} | ${Math.round(median(starts))} | ${Math.round(Math.min(...starts))}–${Math.round(Math.max(...starts))} | ${Math.round(median(rss))} | ${Math.round(Math.min(...rss))}–${Math.round(Math.max(...rss))} |`;
}

const folder = mkdtempSync(join(tmpdir(), 'lab-api-startup-bench-'));
const kept = join(folder, 'kept');
const rows = [
  await measure('PostgreSQL', () => ({ DATABASE_URL: options['database-url'] })),
  await measure('embedded, memory://', () => ({ PGLITE_DATA_DIR: 'memory://' })),
  await measure('embedded, new directory', () => ({ PGLITE_DATA_DIR: join(folder, 'new') }), () => rmSync(join(folder, 'new'), { recursive: true, force: true })),
  // The first start creates it; the runs measured reopen it.
  await (async () => {
    await once({ PGLITE_DATA_DIR: kept }, 38_999);
    return measure('embedded, existing directory', () => ({ PGLITE_DATA_DIR: kept }));
  })(),
];
rmSync(folder, { recursive: true, force: true });
console.log(`Start-up and idle memory, median of ${runs} runs (${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${idleMs / 1000} s idle)\n`);
console.log('| storage | start to first 200 of /api/health, ms | range | idle RSS, MiB | range |');
console.log('|---|---|---|---|---|');
for (const row of rows) console.log(row);
