import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('consumer', import.meta.url));
const clientManifest = JSON.parse(readFileSync(join(root, 'packages', 'client', 'package.json'), 'utf8')) as Manifest;
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

interface Manifest {
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}
/** What `npm pack --json` says of a tarball. */
interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}
interface NpmTree {
  version?: string;
  dependencies?: Record<string, NpmTree>;
}

/** Every package installed in a project, by name, from `npm ls --all --json` (optional packages not installed have no version). */
function installedPackages(project: string): string[] {
  const tree = JSON.parse(expectSuccess(run('npm', ['ls', '--all', '--json'], project))) as NpmTree;
  const names = new Set<string>();
  const visit = (dependencies: Record<string, NpmTree> = {}) => {
    for (const [name, node] of Object.entries(dependencies)) {
      if (node.version === undefined) continue;
      names.add(name);
      visit(node.dependencies);
    }
  };
  visit(tree.dependencies);
  return [...names].sort();
}

/** The bytes of the files under a directory. */
function bytesUnder(directory: string): number {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((name) => statSync(join(directory, name)))
    .reduce((sum, entry) => sum + (entry.isFile() ? entry.size : 0), 0);
}

/**
 * tRPC declares TypeScript (>= 5.7.2) a peer of its packages, so npm installs
 * it, with its platform binary, into a project that has none; a TypeScript
 * project's own one serves instead.
 */
const TYPESCRIPT_PEER = /^(typescript|@typescript\/typescript-[a-z0-9-]+)$/;

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
 * A frontend's view of the client package: packages/client packed alone as it
 * would be published (the build is vitest's global setup), installed first
 * into an empty project outside the repository to see what it brings, then
 * with test/consumer's files and dependencies, whose own tsconfigs and code
 * must compile and run.
 */
describe('a separate package using the typed client', () => {
  let work: string;
  let consumer: string;
  let packed: Packed;
  let emptyInstall: SpawnSyncReturns<string>;
  let installedAlone: string[];
  let bytesAlone: number;
  let fixtureInstall: SpawnSyncReturns<string>;
  let server: TestServer;
  const tsc = (project: string, ...flags: string[]) => run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, ...flags], consumer);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'lab-api-consumer-'));
    [packed] = JSON.parse(expectSuccess(run('npm', ['pack', '--workspace', 'packages/client', '--ignore-scripts', '--json', '--pack-destination', work], root))) as [Packed];
    const tarball = join(work, packed.filename);

    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'empty-consumer', private: true }));
    emptyInstall = run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], consumer);
    expectSuccess(emptyInstall);
    installedAlone = installedPackages(consumer);
    bytesAlone = ['@lab-api', '@trpc'].map((scope) => bytesUnder(join(consumer, 'node_modules', scope))).reduce((a, b) => a + b);

    cpSync(fixture, consumer, { recursive: true, filter: (source) => !/[\\/](node_modules|dist)$/.test(source) });
    const manifest = JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    manifest.dependencies['@lab-api/client'] = `file:${tarball}`;
    writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest, null, 2));
    fixtureInstall = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer);
    expectSuccess(fixtureInstall);
    server = await startTestServer();
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is publishable and depends on tRPC’s client alone, with its server as a peer for the types, in the service’s versions', () => {
    expect(clientManifest.private).toBeUndefined();
    expect(clientManifest.engines).toEqual({ node: '>=20' });
    expect(clientManifest.dependencies).toEqual({ '@trpc/client': rootManifest.dependencies?.['@trpc/client'] });
    expect(clientManifest.peerDependencies).toEqual({ '@trpc/server': rootManifest.dependencies?.['@trpc/server'] });
  });

  it('packs into a few kilobytes: the compiled client and its declarations, nothing of the server', () => {
    expect(packed.files.map((file) => file.path).sort()).toEqual([
      'README.md',
      'dist/app-router.d.ts',
      'dist/app-router.js',
      'dist/create-client.d.ts',
      'dist/create-client.js',
      'dist/event-source.d.ts',
      'dist/event-source.js',
      'dist/idempotency.d.ts',
      'dist/idempotency.js',
      'package.json',
    ]);
    expect(packed.size).toBeLessThan(25_000);
    expect(packed.unpackedSize).toBeLessThan(100_000);
  });

  it('installs into an empty project with tRPC’s two packages besides (and TypeScript, tRPC’s peer, where the project has none), without engine warnings', () => {
    expect(installedAlone.filter((name) => !TYPESCRIPT_PEER.test(name))).toEqual(['@lab-api/client', '@trpc/client', '@trpc/server']);
    expect(bytesAlone).toBeLessThan(5_000_000);
    expect(`${emptyInstall.stderr}${fixtureInstall.stderr}`).not.toContain('EBADENGINE');
  });

  it('declares its types with tRPC’s and its own alone: no import of a server module', () => {
    const declarations = join(consumer, 'node_modules', '@lab-api', 'client', 'dist');
    const specifiers = readdirSync(declarations)
      .filter((name) => name.endsWith('.d.ts'))
      // Import and export declarations (a line each), and the import("…") types declaration emit writes for names it cannot reach.
      .flatMap((name) => [...readFileSync(join(declarations, name), 'utf8').matchAll(/^(?:import|export)\b[^\n]* from '([^']+)'|import\("([^"]+)"\)/gm)])
      .map((match) => match[1] ?? match[2]!);
    expect(specifiers.filter((specifier) => !/^(@trpc\/(client|server)|\.\/[a-z-]+\.ts)$/.test(specifier))).toEqual([]);
  });

  it('type-checks with strict + skipLibCheck + moduleResolution bundler, the @ts-expect-error lines being errors', () => {
    expectSuccess(tsc('tsconfig.bundler.json'));
  });

  it('type-checks with every declaration file checked too', () => {
    expectSuccess(tsc('tsconfig.no-skip-lib-check.json'));
  });

  it('reads no declaration of the server: only tRPC’s and the client package’s', () => {
    const files = expectSuccess(tsc('tsconfig.bundler.json', '--listFilesOnly'))
      .split('\n')
      .filter((file) => file.includes('node_modules/') && !file.includes('node_modules/typescript/'))
      .map((file) => file.slice(file.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(files.filter((file) => file.startsWith('@lab-api/')).sort()).toEqual([
      '@lab-api/client/dist/app-router.d.ts',
      '@lab-api/client/dist/create-client.d.ts',
      '@lab-api/client/dist/event-source.d.ts',
      '@lab-api/client/dist/idempotency.d.ts',
    ]);
    expect(files.filter((file) => !file.startsWith('@lab-api/') && !file.startsWith('@trpc/'))).toEqual([]);
  });

  it('type-checks with strict + skipLibCheck + nodenext, and its calls and a subscription run against a started service', async () => {
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
      // The first answer lost, the client sent the submission again with its key, and got the stored answer.
      lostAnswer: { initials: 'NET', replayed: [null, 'true'] },
    });
    const { keys } = summary['lostAnswer'] as { keys: string[] };
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);

    // scores.live through the eventsource package: the board at once, another client's score within 2 s,
    // and after the connection was cut (a score coming meanwhile), the rest once each, in order.
    const live = summary['live'] as { boards: { id: string; latest: string | null }[]; arrivalMs: number; connections: number; authorizations: (string | null)[] };
    expect(live.boards.map((board) => board.latest)).toEqual([null, 'SUB', 'GAP', 'AFT']);
    const ids = live.boards.map((board) => Number(board.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(live.arrivalMs).toBeLessThan(2_000);
    expect(live.connections).toBe(2);
    // Both connections carried the credential (the eventsource package's fetch option).
    expect(live.authorizations).toEqual([expect.stringMatching(/^Bearer \S+$/), live.authorizations[0]]);
    expect(summary['fetched']).toEqual(summary['created']);
    expect(summary['newestIds']).toContain((summary['created'] as { id: string }).id);
  }, 90_000);
});
