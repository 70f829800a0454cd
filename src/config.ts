import { z } from 'zod';

const positiveInteger = (what: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, `must be a positive integer (${what})`)
    .transform(Number)
    .refine(Number.isSafeInteger, `must be a positive integer (${what})`);

const port = z
  .string()
  .regex(/^[0-9]+$/, 'must be a port number from 0 to 65535')
  .transform(Number)
  .refine((value) => value <= 65535, 'must be a port number from 0 to 65535');

const httpUrl = z
  .string()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

/** An origin as a browser sends it in `Origin`: scheme, host and port only, no path. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** docs/spec/DECISIONS.md, "Browser clients (CORS)": `*`, `none`, or a comma-separated list of origins. */
const corsOrigins = z.string().transform((value, ctx): CorsOrigins => {
  if (value === '*') return { allow: 'any' };
  if (value === 'none') return { allow: 'none' };
  const origins = value.split(',').map((entry) => entry.trim());
  const bad = origins.find((entry) => !isOrigin(entry));
  if (bad !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `must be *, none or a comma-separated list of origins such as https://app.example.com,http://localhost:5173 (${JSON.stringify(bad)} is not an origin: scheme://host[:port], lower case, no path)`,
    });
    return z.NEVER;
  }
  return { allow: 'listed', origins: new Set(origins) };
});

const postgresUrl = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\/.+/.test(value), 'must be a postgres:// or postgresql:// URL');

/** Environment variables as docs/spec/DECISIONS.md, "Running the service" names them. */
const environmentSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  BASE_URL: httpUrl.optional(),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  PGLITE_DATA_DIR: z.string().min(1, 'must not be empty').default('.data/pglite'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  RATE_LIMIT_TASK_WRITES_ANON: positiveInteger('default 30').default(30),
  RATE_LIMIT_TASK_WRITES_AUTH: positiveInteger('default 120').default(120),
  RATE_LIMIT_KEYS_PER_HOUR: positiveInteger('default 5').default(5),
  RATE_LIMIT_TOKENS_PER_MINUTE: positiveInteger('default 20').default(20),
  RATE_LIMIT_SCORES_PER_MINUTE: positiveInteger('default 10').default(10),
  RATE_LIMIT_GRAPHQL_ANON: positiveInteger('default 60').default(60),
  RATE_LIMIT_GRAPHQL_AUTH: positiveInteger('default 240').default(240),
  RATE_LIMIT_DEMO_PER_10_SECONDS: positiveInteger('default 5').default(5),
  RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE: positiveInteger('default 30').default(30),
  SSE_STREAM_MS: positiveInteger('milliseconds, default 25000').default(25000),
  SSE_POLL_MS: positiveInteger('milliseconds, default 1000').default(1000),
  SSE_KEEPALIVE_MS: positiveInteger('milliseconds, default 10000').default(10000),
  SSE_MAX_STREAMS_PER_CLIENT: positiveInteger('default 100').default(100),
  TRUST_PROXY: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^[1-9][0-9]*(,[1-9][0-9]*)*$/, 'must be a comma-separated list of positive integers (milliseconds)')
    .transform((value) => value.split(',').map(Number))
    .optional(),
  WEBHOOK_POLL_MS: positiveInteger('milliseconds, default 1000').default(1000),
  WEBHOOK_TIMEOUT_MS: positiveInteger('milliseconds, default 10000').default(10000),
  WEBHOOK_CONCURRENCY: positiveInteger('sends in flight per instance, default 10').default(10),
  DATABASE_POOL_MAX: positiveInteger('connections, default 10').default(10),
  DATABASE_PIPELINE_DEPTH: positiveInteger('statements per busy connection, default 2').default(2),
  DATABASE_QUEUE_TIMEOUT_MS: positiveInteger('milliseconds, default 5000').default(5000),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInteger('milliseconds, default 10000').default(10000),
  DATABASE_CONNECT_TIMEOUT_MS: positiveInteger('milliseconds, default 5000').default(5000),
  IDEMPOTENCY_IN_PROGRESS_MS: positiveInteger('milliseconds, default 60000').default(60000),
  HTTP_HEADERS_TIMEOUT_MS: positiveInteger('milliseconds, default 15000').default(15000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInteger('milliseconds, default 30000').default(30000),
  METRICS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  OUTPUT_CHECKS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('off'),
  CORS_ORIGINS: corsOrigins.default({ allow: 'any' }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
});

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** `directUrl`: where migrations run, bypassing a pooler in front of `url` (docs/spec/DECISIONS.md, "Direct connection"). */
  database: { kind: 'postgres'; url: string; directUrl: string; pool: PoolSettings } | { kind: 'pglite'; dataDir: string };
  /** JWT_SECRET as set; see usesDevelopmentSecret for what signs without it. */
  jwtSecret: string | undefined;
  /** JWT_SECRET unset on the embedded database: a generated development secret signs tokens (db/development-secret.ts), which start-up warns about. */
  usesDevelopmentSecret: boolean;
  /** Every limit of LIMITS (services/rate-limits/limit-policies.ts), each quota from its RATE_LIMIT_* variable. */
  rateLimits: {
    taskWritesAnonymous: number;
    taskWritesAuthenticated: number;
    keysPerHour: number;
    tokensPerMinute: number;
    scoresPerMinute: number;
    graphqlAnonymous: number;
    graphqlAuthenticated: number;
    demoPer10Seconds: number;
    webhookWritesPerMinute: number;
  };
  /** `maxStreamsPerClient`: open score streams one client may hold on one instance (docs/spec/DECISIONS.md, "Score streams"). */
  sse: { streamMs: number; pollMs: number; keepAliveMs: number; maxStreamsPerClient: number };
  trustProxy: boolean;
  /** `concurrency`: sends in flight per instance (docs/spec/DECISIONS.md, "Webhook sending"). */
  webhooks: { allowPrivate: boolean; retryScheduleMs: number[]; pollMs: number; timeoutMs: number; concurrency: number };
  /** docs/spec/SPEC.md: a first attempt older than this (60 s) no longer holds its Idempotency-Key. */
  idempotency: { inProgressMs: number };
  /** Bounds for slow or stalled clients (node:http's server timeouts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  logLevel: string;
  /** GET /metrics (docs/spec/DECISIONS.md, "Operations"); METRICS=off removes it. */
  metrics: boolean;
  /** Results checked against their output schemas: on in tests and development (docs/adr/0005-output-checks-and-the-short-trpc-query.md). */
  outputChecks: 'on' | 'off';
  /** Which web origins may call /api from a browser. */
  corsOrigins: CorsOrigins;
}

/** CORS_ORIGINS parsed: any origin (`*`), only the listed ones, or no CORS headers at all. */
export type CorsOrigins = { allow: 'any' } | { allow: 'listed'; origins: ReadonlySet<string> } | { allow: 'none' };

/** How the service uses a PostgreSQL server, so that an outage or overload becomes 503s, not a hang. */
export interface PoolSettings {
  /** Connections at most. */
  max: number;
  /**
   * Statements a connection may hold at once: while one runs, the next are
   * already sent (postgres.js's pipelining), so a busy pool takes several
   * statements per round trip. Behind a stuck statement each waits its own
   * statement timeout, so depth × statementTimeoutMs is the longest one waits.
   */
  pipelineDepth: number;
  /** A query that waits this long for a place on a connection fails as unavailable. */
  queueTimeoutMs: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** Standard Webhooks' schedule: the waits after each failed attempt, before the next. */
const STANDARD_RETRY_SCHEDULE_MS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map((seconds) => seconds * 1000);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; throws a ConfigError naming the first bad variable. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable} ${issue?.message ?? 'is invalid'}`);
  }
  const env = parsed.data;
  return {
    port: env.PORT,
    host: env.HOST,
    baseUrl: env.BASE_URL ?? `http://localhost:${env.PORT}`,
    database: env.DATABASE_URL
      ? {
          kind: 'postgres',
          url: env.DATABASE_URL,
          directUrl: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL,
          pool: {
            max: env.DATABASE_POOL_MAX,
            pipelineDepth: env.DATABASE_PIPELINE_DEPTH,
            queueTimeoutMs: env.DATABASE_QUEUE_TIMEOUT_MS,
            statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
            connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
          },
        }
      : { kind: 'pglite', dataDir: env.PGLITE_DATA_DIR },
    jwtSecret: env.JWT_SECRET,
    usesDevelopmentSecret: env.JWT_SECRET === undefined && env.DATABASE_URL === undefined,
    rateLimits: {
      taskWritesAnonymous: env.RATE_LIMIT_TASK_WRITES_ANON,
      taskWritesAuthenticated: env.RATE_LIMIT_TASK_WRITES_AUTH,
      keysPerHour: env.RATE_LIMIT_KEYS_PER_HOUR,
      tokensPerMinute: env.RATE_LIMIT_TOKENS_PER_MINUTE,
      scoresPerMinute: env.RATE_LIMIT_SCORES_PER_MINUTE,
      graphqlAnonymous: env.RATE_LIMIT_GRAPHQL_ANON,
      graphqlAuthenticated: env.RATE_LIMIT_GRAPHQL_AUTH,
      demoPer10Seconds: env.RATE_LIMIT_DEMO_PER_10_SECONDS,
      webhookWritesPerMinute: env.RATE_LIMIT_WEBHOOK_WRITES_PER_MINUTE,
    },
    sse: { streamMs: env.SSE_STREAM_MS, pollMs: env.SSE_POLL_MS, keepAliveMs: env.SSE_KEEPALIVE_MS, maxStreamsPerClient: env.SSE_MAX_STREAMS_PER_CLIENT },
    trustProxy: env.TRUST_PROXY === 'true',
    webhooks: {
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS ?? STANDARD_RETRY_SCHEDULE_MS,
      pollMs: env.WEBHOOK_POLL_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
    },
    idempotency: { inProgressMs: env.IDEMPOTENCY_IN_PROGRESS_MS },
    http: { headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS },
    logLevel: env.LOG_LEVEL,
    metrics: env.METRICS === 'on',
    outputChecks: env.OUTPUT_CHECKS,
    corsOrigins: env.CORS_ORIGINS,
  };
}
