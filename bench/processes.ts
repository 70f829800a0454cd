import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts an entry (compiled JavaScript, or TypeScript through tsx) in its own process on a free port and waits until it answers. */
export async function startServer(name: string, entry: string, env: Record<string, string>, probePath = '/api/health', nodeOptions: string[] = []): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeOptions, ...(entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry])], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  for (let attempt = 0; ; attempt++) {
    if (exited) throw new Error(`${name} exited before answering`);
    if (attempt > 600) throw new Error(`${name} did not answer within 60 s`);
    const ok = await fetch(`${url}${probePath}`).then((response) => response.ok, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds (user + system) the process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const statusMiB = (pid: number, field: 'VmHWM' | 'VmRSS') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** Peak resident memory in MiB since the last reset (VmHWM). */
export function peakRssMiB(pid: number): number {
  return Math.round(statusMiB(pid, 'VmHWM'));
}

/** Resident memory in MiB now (VmRSS). */
export function rssMiB(pid: number): number {
  return statusMiB(pid, 'VmRSS');
}

/** Starts a new peak-RSS measurement (root may write clear_refs; elsewhere the peak is since start). */
export function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here: the peak then covers the whole run.
  }
}
