import { afterAll, beforeAll } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Logger } from '../../src/observability/logger.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export const TEST_BASE_URL = 'http://api.test';
/** The signing secret test servers get, so tests can forge tokens with it. */
export const TEST_JWT_SECRET = 'test-signing-secret-0123456789abcdef';

export interface TestServer {
  /** Where to send requests, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The BASE_URL the service was given: problem types and links use it. */
  baseUrl: string;
  app: RunningApp;
  database: TestDatabase;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Where the service logs (silent by default); see log-capture.ts. */
  log?: Logger;
  /** Serve an existing test database (a second instance) instead of a fresh one. */
  database?: TestDatabase;
}

/**
 * Starts the real service on port 0 against a fresh database. The anonymous
 * task-write and score limits are raised so that tests about other things can
 * write freely; rate-limit tests set them back.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_TASK_WRITES_ANON: '1000000',
    RATE_LIMIT_SCORES_PER_MINUTE: '1000000',
    JWT_SECRET: TEST_JWT_SECRET,
    // Every result the suites see has passed its output schema unchanged (docs/adr/0005-output-checks-and-the-short-trpc-query.md).
    OUTPUT_CHECKS: 'on',
    ...database.env,
    ...options.env,
  });
  const app = await startApp(config, { ...(options.clock ? { clock: options.clock } : {}), ...(options.log ? { log: options.log } : {}) });
  return {
    url: app.url,
    baseUrl: TEST_BASE_URL,
    app,
    database,
    stop: async () => {
      await app.stop();
      if (ownsDatabase) await database.drop();
    },
  };
}

/**
 * The shared fixture: one server for the file (or the describe block it is
 * called in), started before its tests and stopped after them. The handle
 * reads the running server, so `server.url` works inside any test.
 */
export function useTestServer(options: TestServerOptions | (() => TestServerOptions | Promise<TestServerOptions>) = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => {
    await started?.stop();
    started = undefined;
  });
  const running = (): TestServer => {
    if (!started) throw new Error('The test server runs only while the tests of its block do.');
    return started;
  };
  return {
    get url() {
      return running().url;
    },
    get baseUrl() {
      return running().baseUrl;
    },
    get app() {
      return running().app;
    },
    get database() {
      return running().database;
    },
    stop: () => running().stop(),
  };
}
