import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/client.ts';
import { isDatabaseUnavailable } from './errors/database-unavailable.ts';
import { describeInnermostCause } from './errors/innermost-cause.ts';
import { developmentSecret, type DevelopmentSecret } from './db/development-secret.ts';
import { describePostgres } from './db/wait-for-postgres.ts';
import { answerClientErrors, answeredMissingHost } from './http/client-errors.ts';
import { closeAfterOversizedBody } from './http/read-json-body.ts';
import type { GraphQLEndpoint } from './graphql-endpoint/graphql-endpoint.ts';
import { createCors } from './http/cors.ts';
import { checkPortFree, listen } from './http/listen.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { DOCS_PATH } from './pages/docs-page.ts';
import { createStaticContent } from './pages/static-content.ts';
import { createRequestHandler } from './http/request-handler.ts';
import { createScoreStreams } from './streams/score-streams.ts';
import { OpenStreams } from './http/open-streams.ts';
import { createLiveBoards } from './services/scores/live-boards.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { collectGarbage } from './runtime/collect-garbage.ts';
import { ServiceMetrics } from './observability/service-metrics.ts';
import { applyOutputChecks } from './procedures/output-checks.ts';
import { appRouter } from './routers/app-router.ts';
import { noEventDispatcher } from './services/events/event-dispatcher.ts';
import { EventPoller } from './services/events/event-poller.ts';
import { createServiceContext } from './services/service-context.ts';
import { noObserver } from './services/service-observer.ts';
import { WebhookWorker } from './services/webhooks/webhook-worker.ts';

/** In-flight requests get this long to finish at shutdown (docs/spec/DECISIONS.md). */
const SHUTDOWN_GRACE_MS = 10_000;
const MAX_HEADER_BYTES = 16 * 1024;

export interface RunningApp {
  server: Server;
  /** The process's one event poller and its open streams (every transport's), observable for tests and metrics. */
  poller: EventPoller;
  openStreams: OpenStreams;
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  database: DatabaseHandle;
  log: Logger;
  /** Stops accepting, lets in-flight requests finish (bounded), closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  log?: Logger;
}

/** Where the data is kept, for the ready line: never a password. */
function describeDatabase(database: Config['database']): string {
  if (database.kind === 'pglite') {
    return database.dataDir.startsWith('memory://') ? 'embedded PostgreSQL (PGlite) in memory://' : `embedded PostgreSQL (PGlite) in ${database.dataDir}`;
  }
  const { host, port, database: name } = describePostgres(database.url);
  return `PostgreSQL database "${name}" on ${host}:${port}`;
}

/** Start-up in one place: database, migrations, HTTP server. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const log = options.log ?? createLogger(config.logLevel);
  applyOutputChecks(appRouter, config.outputChecks);
  // GraphQL's modules and the OpenAPI document take about half of start-up
  // on their own: they load once the service listens, and only the requests
  // that need them wait for them.
  let listening = () => {};
  const afterListening = new Promise<void>((resolve) => (listening = resolve));
  const graphqlEndpoint = afterListening.then(async () => (await import('./graphql-endpoint/graphql-endpoint.ts')).createGraphQLEndpoint(log, streams));
  const openApiJson = afterListening.then(async () => JSON.stringify((await import('./openapi/api-document.ts')).buildApiDocument(appRouter, config.baseUrl)));
  graphqlEndpoint.catch((error: unknown) => log.error({ err: error }, 'GraphQL could not be set up'));
  const graphql: GraphQLEndpoint = async (req, res, request) => (await graphqlEndpoint).endpoint(req, res, request);
  // Before the database: opening it takes seconds (the embedded one locks its directory too).
  await checkPortFree(config.port, config.host);
  const database = await openDatabase(config.database);
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  let signing: DevelopmentSecret | undefined;
  try {
    if (config.usesDevelopmentSecret && config.database.kind === 'pglite') signing = developmentSecret(config.database.dataDir);
  } catch (error) {
    await database.close();
    throw error;
  }
  const gate = database.gate;
  const metrics = config.metrics
    ? new ServiceMetrics({
        openScoreStreams: () => openStreams.count,
        ...(gate ? { pool: { inUse: () => gate.connectionsInUse, queued: () => gate.queued } } : {}),
      })
    : undefined;
  if (gate && metrics) gate.onWaited = (ms) => metrics.queueWaited(ms / 1000);
  const service = createServiceContext(database.db, {
    clock: options.clock ?? systemClock,
    settings: { baseUrl: config.baseUrl, jwtSecret: config.jwtSecret ?? signing?.secret, rateLimits: config.rateLimits, webhooks: config.webhooks, idempotency: config.idempotency },
    dispatcher: noEventDispatcher,
    observer: metrics ?? noObserver,
  });
  // Webhook delivery hears of every committed event, and polls for retries.
  // The database out of reach (a failover, a pooler restarting) is an outage the readiness probe reports, not a fault of ours: a warning.
  const backgroundFailure = (what: string) => (error: unknown) =>
    isDatabaseUnavailable(error) ? log.warn(`${what}: the database is out of reach (${describeInnermostCause(error)})`) : log.error({ err: error }, what);
  const webhooks = new WebhookWorker(service, backgroundFailure('webhook delivery failed'));
  service.dispatcher = webhooks;
  webhooks.start();
  const poller = new EventPoller(service, config.sse.pollMs, backgroundFailure('event poll failed'));
  const openStreams = new OpenStreams();
  const streams = { clock: service.clock, streamMs: config.sse.streamMs, openStreams };
  const liveBoards = createLiveBoards({ service, poller, maxStreamsPerClient: config.sse.maxStreamsPerClient });
  const scoreStreams = createScoreStreams({ service, liveBoards, openStreams, streamMs: config.sse.streamMs, keepAliveMs: config.sse.keepAliveMs, log });
  const handler = createRequestHandler({
    router: appRouter,
    service,
    scoreStreams,
    liveBoards,
    streams,
    graphql,
    staticContent: createStaticContent(openApiJson),
    metrics,
    cors: createCors(config.corsOrigins),
    baseUrl: config.baseUrl,
    trustProxy: config.trustProxy,
    log,
    // A request that was under way when shutdown began leaves its keep-alive
    // connection idle once answered, after server.close() closed the idle ones.
    onResponseClosed: () => {
      if (draining) setImmediate(() => server.closeIdleConnections());
    },
  });
  let draining = false;
  const server = createServer(
    {
      // Node's default, stated: a request whose header block is larger gets 431.
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node's 400 for a request without Host is written without our headers: answeredMissingHost writes it.
      requireHostHeader: false,
      // How often node:http looks for requests past headersTimeout/requestTimeout (default 30 s).
      connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs / 2),
    },
    (req, res) => {
      // Shutting down: answer what has arrived, then close the connection. A
      // busy keep-alive connection never goes idle, and would otherwise be cut
      // mid-request when the grace period ends.
      if (draining) res.setHeader('Connection', 'close');
      if (answeredMissingHost(req, res)) return;
      closeAfterOversizedBody(req, res);
      handler(req, res).catch((error: unknown) => {
        log.error({ err: error }, 'request handler crashed');
        res.destroy();
      });
    },
  );
  answerClientErrors(server);
  // Slow or stalled clients must not hold sockets for ever: a client that
  // dribbles its headers or body past these gets 408 and a closed connection.
  server.headersTimeout = config.http.headersTimeoutMs;
  server.requestTimeout = config.http.requestTimeoutMs;
  server.keepAliveTimeout = 10_000;

  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    poller.stop();
    await webhooks.stop();
    await database.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  // PGlite's start (initdb above all, on a new directory or in memory) leaves
  // a few hundred MB of WebAssembly memory behind that nothing refers to; V8
  // collects when allocating, not when idle, so an idle service would hold
  // it. Collected once start-up's own promise chain has let go of it.
  if (database.kind === 'pglite') setImmediate(collectGarbage);
  setImmediate(listening);
  const storage = describeDatabase(config.database);
  log.info({ url, docs: `${url}${DOCS_PATH}`, database: storage }, `ready on ${url} (API reference at ${url}${DOCS_PATH}), database: ${storage}`);
  for (const notice of database.notices) log.info(notice);
  if (signing) {
    const where = signing.keptIn
      ? `generated at the first start and kept in ${signing.keptIn} (readable by its owner only), so tokens survive a restart`
      : 'generated for this process (memory://), so its tokens end with it';
    log.warn(`JWT_SECRET is not set: tokens are signed with a development secret ${where}; set JWT_SECRET (32 or more random characters) before real use`);
  } else if (config.jwtSecret === undefined) {
    // No development secret on a real database (docs/spec/DECISIONS.md, "Signing secret"): said now, not found out at the first 503.
    log.warn(
      'JWT_SECRET is not set: this deployment has no signing secret, so POST /api/token answers 503 and every token is refused until it is; set JWT_SECRET (32 or more random characters, the same on every instance) and restart',
    );
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Streams would hold their connections open for SSE_STREAM_MS: end them now.
      openStreams.closeAll();
      poller.stop();
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(grace);
      // Sends under way finish (bounded by their timeout); the rest stay pending for the next start.
      await webhooks.stop();
      await (await graphqlEndpoint.catch(() => undefined))?.close();
      await database.close();
      log.info('stopped');
    })();
    return stopping;
  };
  return { server, url, database, log, poller, openStreams, stop };
}
