import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from './free-port.ts';

const PGBOUNCER = '/usr/sbin/pgbouncer';
/** The configuration docs/DEPLOY.md gives operators, and the lab's auth_file beside it. */
const CONFIGURATION = new URL('../../docs/deploy/pgbouncer.ini', import.meta.url);
const USERLIST = new URL('../../docs/deploy/pgbouncer-userlist.txt', import.meta.url);
/** The user PgBouncer runs as when the tests run as root (it refuses to run as root). */
const RUN_AS = 'postgres';
/** How much of PgBouncer's stderr is kept for a failed start's message. */
const STDERR_TAIL = 16_384;
const DIAGNOSTIC_LOG_LINES = 60;

export const pgbouncerInstalled = existsSync(PGBOUNCER);

export interface PgBouncer {
  host: string;
  port: number;
  /** `databaseUrl` (a URL of the PostgreSQL server behind it) with PgBouncer's host and port: the same database, through the pooler. */
  urlFor(databaseUrl: string): string;
  /** One admin-console command (`SHOW POOLS`, `SHOW CLIENTS`, `KILL db`, `RECONNECT db`…) and its rows. */
  admin(command: string): Promise<Record<string, unknown>[]>;
  /** PgBouncer's log file so far, across restarts. */
  log(): Promise<string>;
  /** SHOW POOLS, SHOW CLIENTS and SHOW SERVERS for `database`, and the log's last lines: what to look at when a test through the pooler fails. */
  diagnostics(database: string): Promise<string>;
  /** Stops PgBouncer as `systemctl restart` would (SIGTERM: immediate shutdown) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The replacements of one line each: the file must still have that line, or the test would run something else. */
function replaceLine(configuration: string, pattern: RegExp, replacement: string): string {
  if (!pattern.test(configuration)) throw new Error(`docs/deploy/pgbouncer.ini no longer has the line ${pattern} that this test replaces`);
  return configuration.replace(pattern, replacement);
}

async function accepting(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The uid and gid to run PgBouncer with: the `postgres` user's when the tests run as root, else the tests' own. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, RUN_AS], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Debian's PgBouncer running docs/deploy/pgbouncer.ini, with only what must
 * differ per run replaced: the listen port (a free one), the file paths (a
 * temporary directory) and, when given, the upstream PostgreSQL server. It
 * runs in the foreground, as this process's child, so the test owns it.
 */
export async function startPgBouncer(options: { upstream?: { host: string; port: number } } = {}): Promise<PgBouncer> {
  const directory = await mkdtemp(join(tmpdir(), 'lab-api-pgbouncer-'));
  // docs/deploy/pgbouncer.ini listens on the loopback address already.
  const host = '127.0.0.1';
  const port = await freePort();
  let configuration = await readFile(CONFIGURATION, 'utf8');
  configuration = replaceLine(configuration, /^listen_port = 6432$/m, `listen_port = ${port}`);
  configuration = replaceLine(configuration, /^unix_socket_dir = .*$/m, `unix_socket_dir = ${directory}`);
  configuration = replaceLine(configuration, /^logfile = .*$/m, `logfile = ${join(directory, 'pgbouncer.log')}`);
  configuration = replaceLine(configuration, /^pidfile = .*$/m, `pidfile = ${join(directory, 'pgbouncer.pid')}`);
  configuration = replaceLine(configuration, /^auth_file = .*$/m, `auth_file = ${join(directory, 'userlist.txt')}`);
  if (options.upstream) {
    configuration = replaceLine(configuration, /^\* = host=\S+ port=\d+$/m, `* = host=${options.upstream.host} port=${options.upstream.port}`);
  }
  const configurationFile = join(directory, 'pgbouncer.ini');
  await writeFile(configurationFile, configuration);
  await copyFile(USERLIST, join(directory, 'userlist.txt'));
  const user = runAs();
  if (user) {
    for (const file of ['', 'pgbouncer.ini', 'userlist.txt']) await chown(join(directory, file), user.uid, user.gid);
  }
  await chmod(directory, 0o700);

  let child: ChildProcess | undefined;
  let exited: Promise<unknown> = Promise.resolve();
  const start = async () => {
    let stderr = '';
    const started = spawn(PGBOUNCER, [configurationFile], { stdio: ['ignore', 'ignore', 'pipe'], ...user });
    // It logs to stderr as well as to its log file: read it, or a full pipe would stop PgBouncer.
    started.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL)));
    child = started;
    exited = once(started, 'exit');
    for (let attempt = 0; !(await accepting(host, port)); attempt++) {
      if (started.exitCode !== null || attempt > 200) throw new Error(`pgbouncer did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stopProcess = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  await start();
  const admin = async (command: string) => {
    // The admin console speaks only the simple query protocol, and has no pg_type to fetch.
    const adminConsole = postgres({ host, port, user: 'postgres', database: 'pgbouncer', max: 1, prepare: false, fetch_types: false, onnotice: () => {} });
    try {
      return [...(await adminConsole.unsafe(command).simple())] as Record<string, unknown>[];
    } finally {
      await adminConsole.end();
    }
  };
  const log = () => readFile(join(directory, 'pgbouncer.log'), 'utf8').catch(() => '');

  return {
    host,
    port,
    urlFor: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = host;
      url.port = String(port);
      return url.toString();
    },
    admin,
    log,
    diagnostics: async (database) => {
      const ours = async (what: string): Promise<Record<string, unknown>[]> =>
        (await admin(`SHOW ${what}`).catch((error: Error) => [{ database, error: error.message }])).filter((row) => row.database === database);
      const [pools, clients, servers] = await Promise.all([ours('POOLS'), ours('CLIENTS'), ours('SERVERS')]);
      const byState = (rows: Record<string, unknown>[]) => {
        const counts: Record<string, number> = {};
        for (const row of rows) counts[String(row.state ?? row.error)] = (counts[String(row.state ?? row.error)] ?? 0) + 1;
        return JSON.stringify(counts);
      };
      const lastLines = (await log()).split('\n').slice(-DIAGNOSTIC_LOG_LINES).join('\n');
      return [
        `SHOW POOLS: ${JSON.stringify(pools)}`,
        `SHOW CLIENTS by state: ${byState(clients)}`,
        `SHOW SERVERS: ${servers.map((row) => `${String(row.state)} (PostgreSQL pid ${String(row.remote_pid)})`).join(', ')}`,
        `pgbouncer.log, last ${DIAGNOSTIC_LOG_LINES} lines:\n${lastLines}`,
      ].join('\n');
    },
    restart: async () => {
      await stopProcess();
      await start();
    },
    stop: async () => {
      await stopProcess();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
