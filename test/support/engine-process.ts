import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Lines kept from each engine's output: enough to tell why it failed, never the whole run. */
const KEPT_LINES = 300;

export interface EngineProcess {
  name: string;
  child: ChildProcess;
  /** The last lines the engine wrote (stdout and stderr together), to show when something failed. */
  output(): string;
  running(): boolean;
  /** Sends `signal`, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

/**
 * One engine of a test (etcd, Patroni, HAProxy) as a child process in the
 * foreground, its output kept for the failure message.
 */
export function startEngineProcess(name: string, command: string, args: string[], options: SpawnOptions = {}): EngineProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const keep = (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop()!;
    lines.push(...complete);
    if (lines.length > KEPT_LINES) lines.splice(0, lines.length - KEPT_LINES);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // A command that cannot be started at all reports it here (and may never emit 'exit').
  let failedToStart = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      failedToStart = true;
      lines.push(`${name} could not be started: ${error.message}`);
      resolve();
    });
  });
  const running = () => !failedToStart && child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    output: () => `--- ${name} (last ${lines.length} lines)\n${[...lines, partial].join('\n')}`,
    running,
    stop: async (signal = 'SIGTERM', graceMs = 20_000) => {
      if (!running()) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
