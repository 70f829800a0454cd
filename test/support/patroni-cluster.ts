import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { startEngineProcess, type EngineProcess } from './engine-process.ts';
import { freePort } from './free-port.ts';

const run = promisify(execFile);

const ETCD = '/usr/bin/etcd';
const PATRONI = '/usr/bin/patroni';
const PATRONICTL = '/usr/bin/patronictl';
const HAPROXY = '/usr/sbin/haproxy';
const POSTGRES = '/usr/lib/postgresql/15/bin/postgres';
/** Debian's packages that bring them, named in the skip reason. */
const PACKAGES = 'etcd-server, etcd-client, patroni, haproxy and postgresql-15';

/** The configurations docs/DEPLOY.md gives operators: the tests run these very files. */
const deployFile = (name: string) => new URL(`../../docs/deploy/${name}`, import.meta.url);

/** The engines' environment: nothing of the test runner's (no PG* variables, no pyenv shims in PATH). */
const ENGINE_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };

const STARTUP_DEADLINE_MS = 120_000;
const HEALTH_DEADLINE_MS = 60_000;
const POLL_MS = 100;

/** The postgres account from /etc/passwd: Patroni refuses to run as root, PostgreSQL too. */
function postgresAccount(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function whyNotRunnable(): string | undefined {
  const absent = [ETCD, PATRONI, PATRONICTL, HAPROXY, POSTGRES].filter((path) => !existsSync(path));
  if (absent.length > 0) return `needs Debian's ${PACKAGES} packages (missing: ${absent.join(', ')}); .ci/run installs them`;
  if (process.getuid?.() !== 0) return 'needs root: Patroni runs PostgreSQL as the postgres user and HAProxy switches to the haproxy user, as the shipped configurations say';
  if (!postgresAccount()) return 'needs the postgres user (Debian\'s postgresql-15 package creates it)';
  return undefined;
}

/** Why the cluster cannot be started on this machine, or undefined when it can. */
export const patroniClusterMissing = whyNotRunnable();
export const patroniClusterInstalled = patroniClusterMissing === undefined;

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  configPath: string;
  /** A connection string straight to this node's PostgreSQL, bypassing HAProxy. */
  url(database?: string): string;
}

interface ClusterMember {
  name: string;
  role: string;
  state: string;
}

export interface PatroniCluster {
  nodes: PatroniNode[];
  /** A connection string through HAProxy's write frontend: always the current primary. */
  url(database?: string): string;
  /** The node Patroni reports as the running leader, or undefined while there is none. */
  leader(): Promise<PatroniNode | undefined>;
  /** Waits until one node leads, the other is its synchronous standby, and HAProxy takes writes. */
  waitUntilReplicated(): Promise<{ leader: PatroniNode; standby: PatroniNode }>;
  /** `patronictl switchover --force`, as an operator runs it; resolves once patronictl reports success. */
  switchover(): Promise<{ from: PatroniNode; to: PatroniNode; output: string }>;
  /** kill -9 of the leader's postmaster (its pid from postmaster.pid); the standby should take over. */
  crashPrimary(): Promise<{ from: PatroniNode; to: PatroniNode; pid: number }>;
  /** The engines' last output lines, for a failure message. */
  logs(): string;
  /** Stops HAProxy, both Patroni nodes (and their PostgreSQL) and etcd, and leaves no process behind. */
  stop(): Promise<void>;
}

/** Replaces each placeholder in one of the shipped files, failing loudly if the file no longer has it. */
function substitute(file: string, text: string, replacements: [string, string][]): string {
  let result = text;
  for (const [from, to] of replacements) {
    if (!result.includes(from)) throw new Error(`docs/deploy/${file} no longer has "${from}", which the failover test replaces`);
    result = result.split(from).join(to);
  }
  return result;
}

/** `count` distinct loopback ports nothing listens on now. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function waitFor<T>(what: string, deadlineMs: number, attempt: () => Promise<T | undefined>, logs: () => string): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} did not happen within ${deadlineMs} ms${lastError ? ` (last error: ${String(lastError)})` : ''}\n${logs()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return (await response.json()) as T;
}

/** Processes whose working directory is inside `dir`: PostgreSQL's all run in their data directory, and every engine here starts in `dir`. */
function processesWorkingIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * A single-member etcd, two Patroni nodes each running PostgreSQL 15 as the
 * postgres user, and HAProxy following the primary — from the files in
 * docs/deploy/, with only their ports, data directories and the socket
 * directory replaced. Resolves once a leader takes writes through HAProxy
 * and the other node is its synchronous standby.
 */
export async function startPatroniCluster(): Promise<PatroniCluster> {
  if (patroniClusterMissing) throw new Error(patroniClusterMissing);
  const account = postgresAccount()!;
  const dir = await mkdtemp(join(tmpdir(), 'lab-api-patroni-'));
  await chown(dir, account.uid, account.gid);
  // Should the test runner die without stop(), its engines go with it.
  const sweep = () => killAll(processesWorkingIn(dir));
  process.once('exit', sweep);

  const [etcdClientPort, etcdPeerPort, haproxyPort, pg1, pg2, rest1, rest2] = await distinctFreePorts(7);
  const etcdHost = `127.0.0.1:${etcdClientPort}`;
  const nodes: PatroniNode[] = [
    { name: 'node1', pgPort: pg1!, restPort: rest1! },
    { name: 'node2', pgPort: pg2!, restPort: rest2! },
  ].map(({ name, pgPort, restPort }) => ({
    name,
    pgPort,
    restPort,
    dataDir: join(dir, name),
    configPath: join(dir, `${name}.yml`),
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${pgPort}/${database}`,
  }));

  const etcdConfig = substitute('etcd.yml', await readFile(deployFile('etcd.yml'), 'utf8'), [
    ['/var/lib/etcd/lab-api', join(dir, 'etcd')],
    ['127.0.0.1:2379', etcdHost],
    ['127.0.0.1:2380', `127.0.0.1:${etcdPeerPort}`],
  ]);
  await writeFile(join(dir, 'etcd.yml'), etcdConfig);
  for (const [index, node] of nodes.entries()) {
    // The shipped files: node1 on 5433 (REST 8008), node2 on 5434 (REST 8009).
    const shipped = { pg: 5433 + index, rest: 8008 + index };
    const config = substitute(`patroni-${node.name}.yml`, await readFile(deployFile(`patroni-${node.name}.yml`), 'utf8'), [
      ['127.0.0.1:2379', etcdHost],
      [`127.0.0.1:${shipped.rest}`, `127.0.0.1:${node.restPort}`],
      [`127.0.0.1:${shipped.pg}`, `127.0.0.1:${node.pgPort}`],
      [`/var/lib/postgresql/15/lab-api-${node.name}`, node.dataDir],
      [`/var/lib/postgresql/lab-api-${node.name}.pgpass`, join(dir, `${node.name}.pgpass`)],
      // Debian's socket directory is shared with its own cluster; the test's sockets stay in its directory.
      ['/var/run/postgresql', dir],
    ]);
    await writeFile(node.configPath, config);
  }
  const haproxyConfig = substitute('haproxy.cfg', await readFile(deployFile('haproxy.cfg'), 'utf8'), [
    ['127.0.0.1:5000', `127.0.0.1:${haproxyPort}`],
    ...nodes.flatMap((node, index): [string, string][] => [
      [`127.0.0.1:${5433 + index}`, `127.0.0.1:${node.pgPort}`],
      [`check port ${8008 + index}`, `check port ${node.restPort}`],
    ]),
  ]);
  await writeFile(join(dir, 'haproxy.cfg'), haproxyConfig);

  const engines: EngineProcess[] = [];
  const logs = () => engines.map((engine) => engine.output()).join('\n');
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${haproxyPort}/${database}`;

  const members = async (): Promise<ClusterMember[] | undefined> => {
    for (const node of nodes) {
      try {
        return (await getJson<{ members: ClusterMember[] }>(`http://127.0.0.1:${node.restPort}/cluster`)).members;
      } catch {
        // This node's REST API is not answering; ask the other.
      }
    }
    return undefined;
  };
  const leader = async () => {
    const running = (await members())?.find((member) => member.role === 'leader' && member.state === 'running');
    return nodes.find((node) => node.name === running?.name);
  };
  const other = (node: PatroniNode) => nodes.find((candidate) => candidate !== node)!;

  const writableThroughHaproxy = async (): Promise<true | undefined> => {
    const sql = postgres(url(), { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      // txid_current() needs a server that can write: a standby refuses it.
      await sql`select txid_current()`;
      return true;
    } finally {
      await sql.end({ timeout: 1 });
    }
  };
  const waitUntilReplicated = async () => {
    const pair = await waitFor(
      'a leader with a streaming synchronous standby',
      HEALTH_DEADLINE_MS,
      async () => {
        const current = await members();
        const lead = current?.find((member) => member.role === 'leader' && member.state === 'running');
        const standby = current?.find((member) => member.role === 'sync_standby' && (member.state === 'running' || member.state === 'streaming'));
        if (!lead || !standby) return undefined;
        return { leader: nodes.find((node) => node.name === lead.name)!, standby: nodes.find((node) => node.name === standby.name)! };
      },
      logs,
    );
    await waitFor('a write through HAProxy', HEALTH_DEADLINE_MS, writableThroughHaproxy, logs);
    return pair;
  };

  const stop = async () => {
    await Promise.all(engines.filter((engine) => engine.name === 'haproxy').map((engine) => engine.stop('SIGTERM', 5_000)));
    // Patroni stops its PostgreSQL on SIGTERM (a fast shutdown) before it exits.
    await Promise.all(engines.filter((engine) => engine.name.startsWith('patroni')).map((engine) => engine.stop('SIGTERM', 30_000)));
    await Promise.all(engines.filter((engine) => engine.name === 'etcd').map((engine) => engine.stop('SIGTERM', 10_000)));
    // Whatever outlived its parent (a postmaster whose Patroni was killed, a backend of a killed postmaster).
    for (let round = 0; round < 50; round++) {
      const left = processesWorkingIn(dir);
      if (left.length === 0) break;
      killAll(left);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    process.removeListener('exit', sweep);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    engines.push(startEngineProcess('etcd', ETCD, ['--config-file', join(dir, 'etcd.yml')], { cwd: dir, env: ENGINE_ENV }));
    await waitFor(
      'etcd answering',
      STARTUP_DEADLINE_MS,
      async () => ((await getJson<{ health?: string }>(`http://${etcdHost}/health`)).health === 'true' ? true : undefined),
      logs,
    );
    for (const node of nodes) {
      engines.push(
        startEngineProcess(`patroni ${node.name}`, PATRONI, [node.configPath], {
          cwd: dir,
          uid: account.uid,
          gid: account.gid,
          env: { ...ENGINE_ENV, HOME: dir },
        }),
      );
    }
    engines.push(startEngineProcess('haproxy', HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], { cwd: dir, env: ENGINE_ENV }));
    await waitFor('the cluster bootstrapping', STARTUP_DEADLINE_MS, async () => ((await leader()) ? true : undefined), logs);
    await waitUntilReplicated();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    nodes,
    url,
    leader,
    waitUntilReplicated,
    switchover: async () => {
      const from = await leader();
      if (!from) throw new Error(`no leader to switch over from\n${logs()}`);
      const to = other(from);
      const { stdout } = await run(PATRONICTL, ['-c', from.configPath, 'switchover', '--leader', from.name, '--candidate', to.name, '--force'], { env: ENGINE_ENV });
      if (!stdout.includes('Successfully switched over')) throw new Error(`patronictl switchover did not succeed:\n${stdout}\n${logs()}`);
      return { from, to, output: stdout };
    },
    crashPrimary: async () => {
      const from = await leader();
      if (!from) throw new Error(`no leader to crash\n${logs()}`);
      // The postmaster's pid is the first line of postmaster.pid in its data directory.
      const pid = Number((await readFile(join(from.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      return { from, to: other(from), pid };
    },
    logs,
    stop,
  };
}
