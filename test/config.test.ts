import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { runServiceExpectingFailure } from './support/service-process.ts';

describe('loadConfig', () => {
  it('applies the defaults of DECISIONS', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3000',
      database: { kind: 'pglite', dataDir: '.data/pglite' },
      // docs/spec/SPEC.md, "Limits" and docs/spec/DECISIONS.md, "Webhook writes".
      rateLimits: {
        taskWritesAnonymous: 30,
        taskWritesAuthenticated: 120,
        keysPerHour: 5,
        tokensPerMinute: 20,
        scoresPerMinute: 10,
        graphqlAnonymous: 60,
        graphqlAuthenticated: 240,
        demoPer10Seconds: 5,
        webhookWritesPerMinute: 30,
      },
      sse: { streamMs: 25000, pollMs: 1000, keepAliveMs: 10000, maxStreamsPerClient: 100 },
      trustProxy: false,
      webhooks: {
        allowPrivate: false,
        retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
        pollMs: 1000,
        timeoutMs: 10_000,
        concurrency: 10,
      },
      idempotency: { inProgressMs: 60_000 },
      http: { headersTimeoutMs: 15_000, requestTimeoutMs: 30_000 },
      outputChecks: 'off',
    });
    // No secret in the source: start-up generates one for the data directory (test/auth.development-secret.test.ts).
    expect(config.jwtSecret).toBeUndefined();
    expect(config.usesDevelopmentSecret).toBe(true);
  });

  it('takes a webhook retry schedule for tests', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '50,100' }).webhooks.retryScheduleMs).toEqual([50, 100]);
  });

  it('derives BASE_URL from PORT and drops a trailing slash from an explicit one', () => {
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ BASE_URL: 'https://api.example.com/' }).baseUrl).toBe('https://api.example.com');
  });

  it('uses PostgreSQL with DATABASE_URL and then has no development secret', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://postgres@127.0.0.1:5432/test',
      // Migrations go where DATABASE_URL does unless DATABASE_DIRECT_URL says otherwise.
      directUrl: 'postgres://postgres@127.0.0.1:5432/test',
      pool: { max: 10, pipelineDepth: 2, queueTimeoutMs: 5000, statementTimeoutMs: 10000, connectTimeoutMs: 5000 },
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://pgbouncer:6432/app', DATABASE_DIRECT_URL: 'postgres://db:5432/app' }).database).toMatchObject({
      url: 'postgres://pgbouncer:6432/app',
      directUrl: 'postgres://db:5432/app',
    });
    expect(config.jwtSecret).toBeUndefined();
    expect(config.usesDevelopmentSecret).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', JWT_SECRET: 's'.repeat(32) }).jwtSecret).toBe('s'.repeat(32));
  });

  it.each([
    ['PORT', 'eighty', /^Invalid configuration: PORT must be a port number/],
    ['PORT', '70000', /^Invalid configuration: PORT must be a port number/],
    ['BASE_URL', 'not a url', /^Invalid configuration: BASE_URL must be an absolute http\(s\) URL/],
    ['DATABASE_URL', 'mysql://x', /^Invalid configuration: DATABASE_URL must be a postgres/],
    ['DATABASE_DIRECT_URL', 'mysql://x', /^Invalid configuration: DATABASE_DIRECT_URL must be a postgres/],
    ['JWT_SECRET', 'short', /^Invalid configuration: JWT_SECRET must be at least 32 characters/],
    ['RATE_LIMIT_TASK_WRITES_ANON', '0', /^Invalid configuration: RATE_LIMIT_TASK_WRITES_ANON must be a positive integer/],
    ['RATE_LIMIT_KEYS_PER_HOUR', '-3', /^Invalid configuration: RATE_LIMIT_KEYS_PER_HOUR must be a positive integer/],
    ['RATE_LIMIT_SCORES_PER_MINUTE', '2.5', /^Invalid configuration: RATE_LIMIT_SCORES_PER_MINUTE must be a positive integer/],
    ['RATE_LIMIT_TASK_WRITES_AUTH', '0', /^Invalid configuration: RATE_LIMIT_TASK_WRITES_AUTH must be a positive integer \(default 120\)$/],
    ['RATE_LIMIT_TOKENS_PER_MINUTE', 'twenty', /^Invalid configuration: RATE_LIMIT_TOKENS_PER_MINUTE must be a positive integer \(default 20\)$/],
    ['RATE_LIMIT_GRAPHQL_ANON', '-60', /^Invalid configuration: RATE_LIMIT_GRAPHQL_ANON must be a positive integer \(default 60\)$/],
    ['RATE_LIMIT_GRAPHQL_AUTH', '2.4e2', /^Invalid configuration: RATE_LIMIT_GRAPHQL_AUTH must be a positive integer \(default 240\)$/],
    ['RATE_LIMIT_DEMO_PER_10_SECONDS', '05', /^Invalid configuration: RATE_LIMIT_DEMO_PER_10_SECONDS must be a positive integer \(default 5\)$/],
    ['RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE', '99999999999999999999', /^Invalid configuration: RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE must be a positive integer \(default 30\)$/],
    ['SSE_STREAM_MS', 'soon', /^Invalid configuration: SSE_STREAM_MS must be a positive integer/],
    ['SSE_MAX_STREAMS_PER_CLIENT', '0', /^Invalid configuration: SSE_MAX_STREAMS_PER_CLIENT must be a positive integer/],
    ['TRUST_PROXY', 'yes', /^Invalid configuration: TRUST_PROXY must be true or false/],
    ['OUTPUT_CHECKS', 'strict', /^Invalid configuration: OUTPUT_CHECKS must be on or off/],
    ['WEBHOOK_ALLOW_PRIVATE', '1', /^Invalid configuration: WEBHOOK_ALLOW_PRIVATE must be true or false/],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '5,x', /^Invalid configuration: WEBHOOK_RETRY_SCHEDULE_MS must be a comma-separated list/],
    ['DATABASE_POOL_MAX', '0', /^Invalid configuration: DATABASE_POOL_MAX must be a positive integer/],
    ['DATABASE_PIPELINE_DEPTH', '0', /^Invalid configuration: DATABASE_PIPELINE_DEPTH must be a positive integer/],
    ['DATABASE_QUEUE_TIMEOUT_MS', 'x', /^Invalid configuration: DATABASE_QUEUE_TIMEOUT_MS must be a positive integer/],
    ['IDEMPOTENCY_IN_PROGRESS_MS', '1e3', /^Invalid configuration: IDEMPOTENCY_IN_PROGRESS_MS must be a positive integer/],
    ['HTTP_HEADERS_TIMEOUT_MS', '-1', /^Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must be a positive integer/],
    ['WEBHOOK_TIMEOUT_MS', '0', /^Invalid configuration: WEBHOOK_TIMEOUT_MS must be a positive integer/],
    ['CORS_ORIGINS', 'app.example.com', /^Invalid configuration: CORS_ORIGINS must be \*, none or a comma-separated list of origins .*"app.example.com" is not an origin/],
    ['CORS_ORIGINS', 'https://app.example.com/', /^Invalid configuration: CORS_ORIGINS .*"https:\/\/app.example.com\/" is not an origin/],
    ['CORS_ORIGINS', 'https://app.example.com/path', /^Invalid configuration: CORS_ORIGINS .*is not an origin/],
    ['CORS_ORIGINS', 'https://App.Example.com', /^Invalid configuration: CORS_ORIGINS .*is not an origin/],
    ['CORS_ORIGINS', '*,https://app.example.com', /^Invalid configuration: CORS_ORIGINS .*"\*" is not an origin/],
    ['CORS_ORIGINS', 'https://a.example,,https://b.example', /^Invalid configuration: CORS_ORIGINS .*"" is not an origin/],
    ['CORS_ORIGINS', 'ftp://files.example', /^Invalid configuration: CORS_ORIGINS .*is not an origin/],
    ['CORS_ORIGINS', 'null', /^Invalid configuration: CORS_ORIGINS .*"null" is not an origin/],
  ])('%s=%s is refused with a line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});

describe('CORS_ORIGINS', () => {
  it('is any origin by default, none when told, or the listed origins (spaces around commas allowed)', () => {
    expect(loadConfig({}).corsOrigins).toEqual({ allow: 'any' });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual({ allow: 'any' });
    expect(loadConfig({ CORS_ORIGINS: 'none' }).corsOrigins).toEqual({ allow: 'none' });
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins).toEqual({
      allow: 'listed',
      origins: new Set(['https://app.example.com', 'http://localhost:5173']),
    });
  });
});

describe('start-up with a bad value', () => {
  it('prints one line naming the variable and exits with status 1', async () => {
    const { code, stderr } = await runServiceExpectingFailure({ RATE_LIMIT_SCORES_PER_MINUTE: 'many' });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid configuration: RATE_LIMIT_SCORES_PER_MINUTE must be a positive integer (default 10)',
    ]);
  });
});
