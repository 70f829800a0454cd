import { startApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { StartupError } from './errors/startup-error.ts';
import { createLogger } from './http/logger.ts';
import { openLogOutput } from './http/log-output.ts';
import { limitHeapGrowth } from './lib/heap-growth.ts';
import { warmUpNextTick } from './lib/next-tick-warm-up.ts';

/** The last log lines get this long to reach stdout at exit; a stalled or closed pipe must not hold the exit. */
const LOG_CLOSE_MS = 2_000;

warmUpNextTick();
limitHeapGrowth();

const output = await openLogOutput();

/** Start-up failures are one plain line on stderr and exit status 1 (DECISIONS "Operations"). */
async function failToStart(line: string): Promise<never> {
  process.stderr.write(`${line}\n`);
  await output.close(LOG_CLOSE_MS);
  process.exit(1);
}

const config = await (async () => {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return failToStart(error.message);
  }
})();
const log = createLogger(config.logLevel, output.stream);

const starting = startApp(config, { log });

// Registered before start-up finishes: a signal that arrives meanwhile stops
// the service once it is up, rather than killing it mid-way. A second signal
// during shutdown changes nothing: stop() is idempotent.
let exiting: Promise<void> | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    exiting ??= (async () => {
      log.info({ signal }, 'shutting down');
      const app = await starting.catch(() => new Promise<never>(() => {})); // a failed start exits on its own
      const code = await app.stop().then(
        () => 0,
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          return 1;
        },
      );
      await output.close(LOG_CLOSE_MS);
      process.exit(code);
    })();
  });
}

await starting.catch((error: unknown) =>
  failToStart(error instanceof StartupError ? error.message : `Could not start: ${(error as Error).message}`),
);
