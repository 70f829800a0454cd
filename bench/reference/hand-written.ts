import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { warmUpNextTick } from '../../src/lib/next-tick-warm-up.ts';

/**
 * The hand-written reference: node:http + postgres.js doing the same SQL work
 * with the same semantics as the service on the benchmarked routes — ETag and
 * 304, keyset cursor, retention, the rate-limit upsert, the idempotency claim,
 * the transaction with rank, retention and the event row, and the replay. No
 * validation library, no router, no ORM: what "hand-written" buys.
 */
const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {}, connection: { statement_timeout: 10_000 } });

const etag = (json: string) => `"${createHash('sha1').update(json).digest('base64url')}"`;
const taskJson = (row: { id: string; title: string; done: boolean; created_at: Date; updated_at: Date }) => ({
  id: row.id,
  title: row.title,
  done: row.done,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GAMES: Record<string, { max: number; better: 'higher' | 'lower' }> = {
  toppler: { max: 20000, better: 'higher' },
  marble: { max: 3600000, better: 'lower' },
  stacker: { max: 500, better: 'higher' },
  runner: { max: 1000000, better: 'higher' },
  demo: { max: 1000000, better: 'higher' },
};

function send(res: ServerResponse, status: number, body: string | undefined, headers: Record<string, string> = {}): void {
  res.writeHead(status, body === undefined ? headers : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

async function rateLimit(name: string, client: string, limit: number, windowSeconds: number): Promise<Record<string, string> | undefined> {
  const now = Date.now();
  const start = new Date(Math.floor(now / (windowSeconds * 1000)) * windowSeconds * 1000);
  const end = new Date(start.getTime() + windowSeconds * 1000);
  const [row] = await sql`insert into rate_limit_windows (name, client, window_start, window_end, hits) values (${name}, ${client}, ${start}, ${end}, 1)
    on conflict (name, client, window_start) do update set hits = rate_limit_windows.hits + 1 returning hits`;
  const hits = row!.hits as number;
  const reset = Math.max(1, Math.ceil((end.getTime() - now) / 1000));
  if (hits > limit) return undefined;
  return { 'RateLimit-Policy': `"${name}";q=${limit};w=${windowSeconds}`, RateLimit: `"${name}";r=${limit - hits};t=${reset}` };
}

const newestTasks = (limit: number) => sql`select * from tasks order by created_at desc, id desc limit ${limit}`;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [path = '/', query = ''] = (req.url ?? '/').split('?');
  const client = `ip:${req.socket.remoteAddress}`;
  res.setHeader('X-Request-Id', randomUUID());
  if (path === '/api/health') return send(res, 200, '{"ok":true}');

  const task = /^\/api\/tasks\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && task) {
    if (!UUID.test(task[1]!)) return send(res, 422, '{"error":"id"}');
    const [row] = await sql`select * from tasks where id = ${task[1]!}`;
    if (!row) return send(res, 404, '{"error":"not found"}');
    const json = JSON.stringify(taskJson(row as never));
    const tag = etag(json);
    const headers = { ETag: tag, 'Cache-Control': 'no-cache', 'API-Version': '1', Vary: 'API-Version' };
    if (req.headers['if-none-match']?.split(',').some((item) => item.trim().replace(/^W\//, '') === tag)) return send(res, 304, undefined, headers);
    return send(res, 200, json, headers);
  }

  if (req.method === 'GET' && path === '/api/tasks') {
    const limit = Number(new URLSearchParams(query).get('limit') ?? 20);
    const rows = await sql`select * from tasks order by created_at desc, id desc limit ${limit + 1}`;
    const items = rows.slice(0, limit).map((row) => taskJson(row as never));
    const last = items.at(-1);
    const nextCursor = rows.length > limit && last ? Buffer.from(JSON.stringify({ createdAt: last.createdAt, id: last.id })).toString('base64url') : null;
    const json = JSON.stringify({ items, nextCursor });
    const headers: Record<string, string> = { ETag: etag(json), 'Cache-Control': 'no-cache' };
    if (nextCursor) headers.Link = `</api/tasks?limit=${limit}&cursor=${nextCursor}>; rel="next"`;
    return send(res, 200, json, headers);
  }

  if (req.method === 'GET' && path === '/api/trpc/tasks.newest') {
    const rows = await newestTasks(5);
    return send(res, 200, JSON.stringify({ result: { data: rows.map((row) => taskJson(row as never)) } }));
  }

  if (req.method === 'POST' && path === '/api/graphql') {
    const body = JSON.parse(await readBody(req)) as { query?: string };
    if (typeof body.query !== 'string') return send(res, 400, '{"errors":[{"message":"query"}]}');
    const limits = await rateLimit('graphql', client, 60_000_000, 60);
    const rows = await newestTasks(5);
    return send(res, 200, JSON.stringify({ data: { tasks: rows.map((row) => ({ id: row.id, title: row.title })) } }), {
      'Content-Type': 'application/graphql-response+json; charset=utf-8',
      ...limits,
    });
  }

  if (req.method === 'POST' && path === '/api/tasks') {
    const limits = await rateLimit('task-writes', client, 100_000_000, 60);
    const body = JSON.parse(await readBody(req)) as { title?: unknown; done?: unknown };
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    if (title.length < 1 || title.length > 200) return send(res, 422, '{"error":"title"}');
    const now = new Date();
    const row = await sql.begin(async (tx) => {
      const [inserted] = await tx`insert into tasks (id, title, done, created_at, updated_at) values (${randomUUID()}, ${title}, ${body.done === true}, ${now}, ${now}) returning *`;
      await tx`select pg_advisory_xact_lock(7340201)`;
      await tx`delete from tasks where id in (select id from tasks order by created_at desc, id desc offset 200)`;
      return inserted;
    });
    const json = JSON.stringify(taskJson(row as never));
    return send(res, 201, json, { Location: `/api/tasks/${row!.id}`, ETag: etag(json), ...limits });
  }

  if (req.method === 'POST' && path === '/api/scores') {
    const limits = await rateLimit('score-submit', client, 100_000_000, 60);
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) return send(res, 400, '{"error":"idempotency-key"}');
    const text = await readBody(req);
    const fingerprint = createHash('sha256').update(`POST /api/scores\n${text}`).digest('hex');
    const claim = randomUUID();
    const now = new Date();
    const [claimed] = await sql`insert into idempotency_records (client, key, claim, fingerprint, state, started_at) values (${client}, ${key}, ${claim}, ${fingerprint}, 'in_progress', ${now})
      on conflict (client, key) do update set claim = excluded.claim, fingerprint = excluded.fingerprint, state = 'in_progress', started_at = excluded.started_at,
        completed_at = null, response_status = null, response_headers = null, response_body = null
      where (idempotency_records.state = 'in_progress' and idempotency_records.started_at <= ${new Date(now.getTime() - 60_000)})
         or (idempotency_records.state = 'completed' and idempotency_records.completed_at <= ${new Date(now.getTime() - 86_400_000)})
      returning claim`;
    if (claimed?.claim !== claim) {
      const [existing] = await sql`select * from idempotency_records where client = ${client} and key = ${key}`;
      if (!existing || existing.fingerprint !== fingerprint) return send(res, 422, '{"error":"reused"}');
      if (existing.state === 'in_progress') return send(res, 409, '{"error":"in progress"}', { 'Retry-After': '1' });
      return send(res, existing.response_status as number, existing.response_body as string, { ...(existing.response_headers as Record<string, string>), ...limits, 'Idempotent-Replayed': 'true' });
    }
    const body = JSON.parse(text) as { game: string; initials: string; value: number };
    const game = GAMES[body.game];
    if (!game || !/^[A-Z]{3}$/.test(body.initials) || !Number.isInteger(body.value) || body.value < 0 || body.value > game.max) {
      await sql`delete from idempotency_records where client = ${client} and key = ${key} and claim = ${claim}`;
      return send(res, 422, '{"error":"score"}');
    }
    const createdAt = new Date();
    const score = await sql.begin(async (tx) => {
      const id = randomUUID();
      await tx`insert into scores (id, game, initials, value, created_at) values (${id}, ${body.game}, ${body.initials}, ${body.value}, ${createdAt})`;
      const better = game.better === 'higher' ? tx`value > ${body.value}` : tx`value < ${body.value}`;
      const [ranked] = await tx`select count(*)::int as n from scores where game = ${body.game} and (${better} or (value = ${body.value} and created_at < ${createdAt}))`;
      const result = { id, game: body.game, initials: body.initials, value: body.value, rank: 1 + (ranked!.n as number), createdAt: createdAt.toISOString() };
      await tx`select pg_advisory_xact_lock(${7340300 + Object.keys(GAMES).indexOf(body.game)})`;
      const order = game.better === 'higher' ? tx`value desc` : tx`value asc`;
      await tx`delete from scores where id in (select id from scores where game = ${body.game} order by ${order}, created_at asc, id asc offset 100)`;
      await tx`select pg_advisory_xact_lock(7340203)`;
      await tx`insert into events (type, data, created_at) values ('score.submitted', ${JSON.stringify(result)}::json, ${createdAt})`;
      const json = JSON.stringify(result);
      await tx`update idempotency_records set state = 'completed', completed_at = ${new Date()}, response_status = 201,
        response_headers = ${JSON.stringify({ 'Content-Type': 'application/json' })}::jsonb, response_body = ${json}
        where client = ${client} and key = ${key} and claim = ${claim}`;
      return json;
    });
    return send(res, 201, score, limits);
  }

  return send(res, 404, '{"error":"no route"}');
}

// The service's start-up warm-up (src/lib/next-tick-warm-up.ts), here too: without it either server lands,
// process by process, on V8's slow path for Node's tick objects, and the ratios measure that luck.
warmUpNextTick();

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // A client that hung up at the end of a load run is no failure.
    if ((error as Error).message !== 'aborted') process.stderr.write(`${String(error)}\n`);
    if (!res.headersSent) send(res, 500, '{"error":"internal"}');
  });
});
server.keepAliveTimeout = 10_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
