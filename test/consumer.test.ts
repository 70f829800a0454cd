import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('consumer', import.meta.url));

function run(command: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000 });
}

/** For a process that talks to the in-process server: spawnSync would block the server's event loop. */
function runAlongside(command: string, args: string[], cwd: string): Promise<SpawnSyncReturns<string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ pid: child.pid ?? 0, output: [null, stdout, stderr], stdout, stderr, status, signal }));
  });
}

function expectSuccess(result: SpawnSyncReturns<string>): string {
  // The output is the diagnostic when it fails: type errors, npm's complaint.
  expect({ status: result.status, output: result.status === 0 ? '' : `${result.stdout}\n${result.stderr}` }).toEqual({ status: 0, output: '' });
  return result.stdout;
}

/**
 * A frontend's view of the package: lab-api packed as it would be published
 * (the build is vitest's global setup), installed in a copy of
 * test/consumer, whose own tsconfigs and code must compile and run.
 */
describe('a separate package using the typed client', () => {
  let work: string;
  let consumer: string;
  let server: TestServer;
  const tsc = (project: string, ...flags: string[]) => run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, ...flags], consumer);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'lab-api-consumer-'));
    expectSuccess(run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root));
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    consumer = join(work, 'consumer');
    cpSync(fixture, consumer, { recursive: true, filter: (source) => !/[\\/](node_modules|dist)$/.test(source) });
    const manifest = JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    manifest.dependencies['lab-api'] = `file:${join(work, tarball!)}`;
    writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest, null, 2));
    expectSuccess(run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer));
    server = await startTestServer();
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('type-checks with strict + skipLibCheck + moduleResolution bundler, the @ts-expect-error lines being errors', () => {
    expectSuccess(tsc('tsconfig.bundler.json'));
  });

  it('type-checks with every declaration file checked too', () => {
    expectSuccess(tsc('tsconfig.no-skip-lib-check.json'));
  });

  it('reads no declaration of the server: only tRPC’s and the two client entry points', () => {
    const files = expectSuccess(tsc('tsconfig.bundler.json', '--listFilesOnly'))
      .split('\n')
      .filter((file) => file.includes('node_modules/') && !file.includes('node_modules/typescript/'))
      .map((file) => file.slice(file.indexOf('node_modules/') + 'node_modules/'.length));
    expect(files.filter((file) => file.startsWith('lab-api/')).sort()).toEqual(['lab-api/dist/client/app-router.d.ts', 'lab-api/dist/client/create-client.d.ts']);
    expect(files.filter((file) => !file.startsWith('lab-api/') && !file.startsWith('@trpc/'))).toEqual([]);
  });

  it('type-checks with strict + skipLibCheck + nodenext, and its calls run against a started service', async () => {
    expectSuccess(tsc('tsconfig.nodenext.json'));
    const summary = JSON.parse(expectSuccess(await runAlongside(process.execPath, ['dist/main.js', server.url], consumer))) as Record<string, unknown>;
    expect(summary).toMatchObject({
      created: { title: 'from a consumer package', done: false },
      board: { game: 'demo' },
      submitted: { initials: 'TSC', rank: expect.any(Number) },
      replayedSameId: true,
      notFound: { code: 'NOT_FOUND', httpStatus: 404 },
      badInput: { code: 'BAD_REQUEST', issuePaths: ['game'] },
      limited: { code: 'TOO_MANY_REQUESTS', retryAfter: expect.any(Number) },
    });
    expect(summary['fetched']).toEqual(summary['created']);
    expect(summary['newestIds']).toContain((summary['created'] as { id: string }).id);
  });
});
