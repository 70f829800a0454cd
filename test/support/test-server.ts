import { startApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export const TEST_BASE_URL = 'http://api.test';

export interface TestServer {
  /** Where to send requests, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The BASE_URL the service was given: problem types and links use it. */
  baseUrl: string;
  app: RunningApp;
  stop(): Promise<void>;
}

/** Starts the real service on port 0 against a fresh database. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const database: TestDatabase = await createTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    ...database.env,
    ...env,
  });
  const app = await startApp(config);
  return {
    url: app.url,
    baseUrl: TEST_BASE_URL,
    app,
    stop: async () => {
      await app.stop();
      await database.drop();
    },
  };
}
