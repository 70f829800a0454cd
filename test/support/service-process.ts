import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `npm start`'s command: the compiled service, built before the tests by test/support/build-service.ts. */
const SERVICE_ENTRY = 'dist/main.js';

const SERVICE_VARIABLES = /^(PORT|HOST|BASE_URL|DATABASE_.*|PGLITE_DATA_DIR|JWT_SECRET|RATE_LIMIT_.*|SSE_.*|TRUST_PROXY|WEBHOOK_.*|IDEMPOTENCY_.*|HTTP_.*|LOG_LEVEL|METRICS)$/;

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

/** `npm start` itself, through the npm that runs the tests when there is one. */
function npmStartCommand(): [string, string[]] {
  const npmCli = process.env.npm_execpath;
  return npmCli && npmCli.endsWith('.js') ? [process.execPath, [npmCli, 'start']] : ['npm', ['start']];
}

/**
 * Runs `npm start`'s command (`node dist/main.js`), or with `viaNpm` `npm
 * start` itself, as its own process and waits for its ready line.
 */
export async function startServiceProcess(env: Record<string, string>, options: { viaNpm?: boolean; cwd?: string } = {}): Promise<ServiceProcess> {
  const [command, args] = options.viaNpm ? npmStartCommand() : [process.execPath, [SERVICE_ENTRY]];
  const child = spawn(command, args, {
    cwd: options.cwd ?? root,
    env: { ...inheritedEnvironment(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': by then every line the process wrote has been read.
  const exited = once(child, 'close').then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    // npm prints its own banner first; the service's lines are the JSON ones.
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        lines.push(line);
        const entry = JSON.parse(line) as { url?: string; docs?: string };
        // The ready line (docs/spec/DECISIONS.md, "Operations") names the URL and the /docs page.
        if (entry.url && entry.docs) resolve(entry.url);
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

/** Runs the service expecting it to refuse to start; resolves with its exit code and what it wrote. */
export async function runServiceExpectingFailure(env: Record<string, string>, cwd = root): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [SERVICE_ENTRY], {
    cwd,
    env: { ...inheritedEnvironment(), PORT: '0', HOST: '127.0.0.1', PGLITE_DATA_DIR: 'memory://', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr, stdout };
}
