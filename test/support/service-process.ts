import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

const SERVICE_VARIABLES = /^(PORT|HOST|BASE_URL|DATABASE_.*|PGLITE_DATA_DIR|JWT_SECRET|RATE_LIMIT_.*|SSE_.*|TRUST_PROXY|WEBHOOK_.*|IDEMPOTENCY_.*|HTTP_.*|LOG_LEVEL)$/;

/** The test runner's environment without any service setting (Vite itself sets BASE_URL). */
function inheritedEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !SERVICE_VARIABLES.test(entry[0])),
  );
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every line the process wrote to stdout so far. */
  lines: string[];
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `npm start`'s command as its own process and waits for its "listening" log line. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...inheritedEnvironment(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url) resolve(entry.url);
      }
    });
    void exited.then((code) => reject(new Error(`service exited with ${code} before listening: ${stderr}`)));
  });
  return {
    child,
    url,
    lines,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the service expecting it to refuse to start; resolves with its exit code and stderr. */
export async function runServiceExpectingFailure(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...inheritedEnvironment(), PORT: '0', HOST: '127.0.0.1', PGLITE_DATA_DIR: 'memory://', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}
