import { execFile, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_SCRIPT = fileURLToPath(new URL('./namespace-client.ts', import.meta.url));

/** One request sent from inside the namespace, from the source address `from`. */
export interface NamespacedRequest {
  from: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface NamespacedResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** What namespace-client.ts is given: where the server is, and the requests to send in order. */
export interface NamespacedBatch {
  host: string;
  port: number;
  requests: NamespacedRequest[];
}

export interface NetworkNamespace {
  name: string;
  /** The test process's end of the link: a server listening on `::` is reached there. */
  serverAddress: string;
  /** Two addresses the namespace holds in one /64 (`2001:db8:<run>:2::a` and `…::b`). */
  sameNetwork: [string, string];
  /** An address the namespace holds in another /64 (`2001:db8:<run>:3::a`). */
  otherNetwork: string;
  /** The two /64s, written as docs/spec/DECISIONS.md writes them (`2001:db8:<run>:2::/64`). */
  networks: { same: string; other: string };
  /** Sends the requests in order, each from its own source address, and answers what came back. */
  send(port: number, requests: NamespacedRequest[]): Promise<NamespacedResponse[]>;
  /** Deletes the namespace, and with it both ends of the link and their routes. */
  remove(): Promise<void>;
}

function ip(args: string[]): Promise<unknown> {
  return run('ip', args, { timeout: 10_000 });
}

/**
 * Why this machine cannot give a test a network namespace of its own (not
 * Linux, not root, no iproute2, no veth or IPv6 in the kernel, no right to
 * mount in a container), or undefined
 * when it can. Tried for real with a namespace made and deleted at once: a
 * container without the network capability fails only at that point.
 */
export function networkNamespaceUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `network namespaces are Linux's, this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'creating a network namespace needs root';
  if (spawnSync('ip', ['-V']).error) return 'iproute2 (`ip`) is not installed';
  const probe = `lab-api-probe-${process.pid}-${randomBytes(3).toString('hex')}`;
  const steps = [
    ['netns', 'add', probe],
    ['-n', probe, 'link', 'add', 'probe0', 'type', 'veth', 'peer', 'name', 'probe1'],
    ['-n', probe, '-6', 'addr', 'add', '2001:db8::1/64', 'dev', 'probe0', 'nodad'],
    // How the clients run: it needs to mount /sys for the namespace, which a container may refuse.
    ['netns', 'exec', probe, process.execPath, '--version'],
  ];
  try {
    for (const step of steps) {
      const outcome = spawnSync('ip', step, { encoding: 'utf8', timeout: 10_000 });
      if (outcome.status !== 0) return `\`ip ${step.join(' ')}\` failed: ${(outcome.stderr || String(outcome.error)).trim()}`;
    }
    return undefined;
  } finally {
    spawnSync('ip', ['netns', 'del', probe]);
  }
}

/**
 * A network namespace joined to this one by a veth pair, holding three IPv6
 * addresses: two in one /64 and one in another. Its names and its /48
 * (`2001:db8:<run>::/48`, routed to the link here) are new on each call, so
 * two test runs on one machine do not meet. Clients run inside it as their
 * own processes (`ip netns exec`), so a server here sees each request come
 * from the address it was sent from.
 */
export async function createNetworkNamespace(): Promise<NetworkNamespace> {
  const tag = randomBytes(3).toString('hex');
  const name = `lab-api-ipv6-${process.pid}-${tag}`;
  // Interface names have at most 15 characters.
  const hostEnd = `l6h${tag}`;
  const namespaceEnd = `l6n${tag}`;
  const run48 = `2001:db8:${randomInt(1, 0xffff).toString(16)}`;
  const serverAddress = `${run48}:1::1`;
  const sameNetwork: [string, string] = [`${run48}:2::a`, `${run48}:2::b`];
  const otherNetwork = `${run48}:3::a`;

  const remove = async (): Promise<void> => {
    // Deleting the namespace deletes its end of the pair and so the other; the second step is for a pair that never got there.
    await ip(['netns', 'del', name]).catch(() => undefined);
    await ip(['link', 'del', hostEnd]).catch(() => undefined);
  };

  try {
    await ip(['netns', 'add', name]);
    await ip(['link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', namespaceEnd]);
    await ip(['link', 'set', namespaceEnd, 'netns', name]);
    // nodad: usable at once, instead of after duplicate address detection's second or two.
    await ip(['-6', 'addr', 'add', `${serverAddress}/64`, 'dev', hostEnd, 'nodad']);
    await ip(['link', 'set', hostEnd, 'up']);
    await ip(['-6', 'route', 'add', `${run48}::/48`, 'dev', hostEnd]);
    for (const address of [...sameNetwork, otherNetwork]) await ip(['-n', name, '-6', 'addr', 'add', `${address}/64`, 'dev', namespaceEnd, 'nodad']);
    await ip(['-n', name, 'link', 'set', namespaceEnd, 'up']);
    await ip(['-n', name, '-6', 'route', 'add', 'default', 'dev', namespaceEnd]);
  } catch (failure) {
    await remove();
    throw failure;
  }

  return {
    name,
    serverAddress,
    sameNetwork,
    otherNetwork,
    networks: { same: `${run48}:2::/64`, other: `${run48}:3::/64` },
    async send(port, requests) {
      const batch: NamespacedBatch = { host: serverAddress, port, requests };
      const { stdout } = await run('ip', ['netns', 'exec', name, process.execPath, '--import', 'tsx', CLIENT_SCRIPT, JSON.stringify(batch)], { cwd: root, timeout: 20_000 });
      return JSON.parse(stdout) as NamespacedResponse[];
    },
    remove,
  };
}
