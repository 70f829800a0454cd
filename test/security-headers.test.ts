import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { graphql } from './support/graphql-client.ts';
import { jsonBody, request } from './support/http.ts';
import { headBeforeClose, sendRaw } from './support/raw-http.ts';
import { createTask } from './support/tasks-client.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

/** docs/spec/DECISIONS.md, "Security headers": the pages, the only answers a browser renders as documents. */
const PAGES = ['/', '/docs', '/graphiql', '/versioning'] as const;

/** What a response of any kind is reduced to here: its status and its headers. */
interface Answer {
  status: number;
  header(name: string): string | null;
}

async function fetched(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await request(`${server.url}${path}`, init);
  return { status: response.status, header: (name) => response.headers.get(name) };
}

/** The headers of a stream that never ends by itself: read them, then hang up. */
async function streamed(path: string): Promise<Answer> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}${path}`, { signal: controller.signal });
  controller.abort();
  return { status: response.status, header: (name) => response.headers.get(name) };
}

/** Through node:http, for what fetch cannot send: a chunked body that grows past the limit. */
async function raw(method: string, path: string, headers: [string, string][], body: Buffer): Promise<Answer> {
  const response = await sendRaw(server.url, { method, target: path, headers, body });
  return { status: response.status, header: (name) => (response.headers[name.toLowerCase()] as string | undefined) ?? null };
}

const OVERSIZED = JSON.stringify({ title: 'x'.repeat(70_000) });

/** Every kind of answer the service gives, with the status that proves the request reached it. */
const EVERY_KIND: [kind: string, status: number, send: () => Promise<Answer>][] = [
  ['REST 200', 200, () => fetched('/api/health')],
  ['REST 201', 201, () => fetched('/api/tasks', { method: 'POST', ...jsonBody({ title: 'sniffed' }) })],
  ['REST 204', 204, async () => fetched(`/api/tasks/${(await createTask(server.url)).task.id}`, { method: 'DELETE' })],
  [
    'REST 304',
    304,
    async () => {
      const { task, etag } = await createTask(server.url);
      return fetched(`/api/tasks/${task.id}`, { headers: { 'If-None-Match': etag } });
    },
  ],
  ['REST HEAD', 200, () => fetched('/api/health', { method: 'HEAD' })],
  ['problem 400 (not JSON)', 400, () => fetched('/api/tasks', { method: 'POST', body: '{"title":', headers: { 'content-type': 'application/json' } })],
  ['problem 401', 401, () => fetched('/api/me', { headers: { Authorization: 'Bearer not-a-token' } })],
  ['problem 404', 404, () => fetched('/no/such/page')],
  ['problem 413', 413, () => fetched('/api/tasks', { method: 'POST', body: OVERSIZED, headers: { 'content-type': 'application/json' } })],
  [
    'problem 413 (chunked, connection closed)',
    413,
    () => raw('POST', '/api/tasks', [['content-type', 'application/json'], ['transfer-encoding', 'chunked']], Buffer.from(OVERSIZED)),
  ],
  ['problem 422', 422, () => fetched('/api/tasks', { method: 'POST', ...jsonBody({ title: '' }) })],
  [
    'problem 429',
    429,
    async () => {
      // The demo limit allows 5 a window: a new window may begin on the way, so ask until refused.
      for (let attempt = 0; attempt < 12; attempt++) {
        const answer = await fetched('/api/limits/demo');
        if (answer.status === 429) return answer;
      }
      throw new Error('the demo limit never refused');
    },
  ],
  ['CORS preflight 204', 204, () => fetched('/api/tasks', { method: 'OPTIONS', headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' } })],
  ['CORS answer', 200, () => fetched('/api/health', { headers: { Origin: 'https://app.example.com' } })],
  ['tRPC query', 200, () => fetched('/api/trpc/tasks.newest')],
  ['tRPC batch', 200, () => fetched(`/api/trpc/tasks.newest,tasks.newest?batch=1&input=${encodeURIComponent('{}')}`)],
  ['tRPC mutation', 200, () => fetched('/api/trpc/tasks.create', { method: 'POST', ...jsonBody({ title: 'sniffed over tRPC' }) })],
  ['tRPC 404 procedure', 404, () => fetched('/api/trpc/no.such')],
  ['tRPC 405', 405, () => fetched('/api/trpc/tasks.newest', { method: 'PUT' })],
  ['tRPC 413', 413, () => fetched('/api/trpc/tasks.create', { method: 'POST', body: OVERSIZED, headers: { 'content-type': 'application/json' } })],
  ['GraphQL 200', 200, () => graphql(server.url, { query: '{ tasks { id } }' }).then((response) => ({ status: response.status, header: (name: string) => response.headers.get(name) }))],
  ['GraphQL 400', 400, () => fetched('/api/graphql', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } })],
  ['GraphQL 405', 405, () => fetched('/api/graphql')],
  ['GraphQL 413', 413, () => fetched('/api/graphql', { method: 'POST', body: OVERSIZED, headers: { 'content-type': 'application/json' } })],
  ['score stream', 200, () => streamed('/api/scores/stream?game=demo')],
  ['score stream HEAD', 200, () => fetched('/api/scores/stream?game=demo', { method: 'HEAD' })],
  ['score stream 422', 422, () => fetched('/api/scores/stream?game=pong')],
  ['/metrics', 200, () => fetched('/metrics')],
  ['/api/openapi.json', 200, () => fetched('/api/openapi.json')],
  ['/api/openapi.json in brotli', 200, () => fetched('/api/openapi.json', { headers: { 'Accept-Encoding': 'br' } })],
  ...PAGES.map((path): [string, number, () => Promise<Answer>] => [`page ${path}`, 200, () => fetched(path)]),
  ...PAGES.map((path): [string, number, () => Promise<Answer>] => [`page ${path} HEAD`, 200, () => fetched(path, { method: 'HEAD' })]),
  ['Swagger UI asset', 200, () => fetched('/docs/assets/swagger-ui-bundle.js')],
  ['GraphiQL asset', 200, () => fetched('/graphiql/assets/graphiql.css')],
  ['GraphiQL editor worker', 200, () => fetched('/graphiql/assets/graphql.worker.js')],
  [
    'leaderboard asset',
    200,
    async () => {
      const page = await request<string>(`${server.url}/`);
      const script = /<script[^>]* src="(\/app\/assets\/[^"]+)"/.exec(page.text)?.[1];
      if (script === undefined) throw new Error('the leaderboard page names no script');
      return fetched(script);
    },
  ],
];

describe('X-Content-Type-Options: nosniff on every response', () => {
  it.each(EVERY_KIND)('%s', async (_kind, status, send) => {
    const answer = await send();
    expect(answer.status).toBe(status);
    expect(answer.header('x-content-type-options')).toBe('nosniff');
  });

  it('on a 500, which shows no internals', async () => {
    const { db } = server.app.database;
    // A failure no input can cause: the table the read needs is gone, for this one request.
    await db.execute(sql`alter table tasks rename to tasks_away`);
    try {
      const answer = await fetched('/api/tasks');
      expect(answer.status).toBe(500);
      expect(answer.header('x-content-type-options')).toBe('nosniff');
    } finally {
      await db.execute(sql`alter table tasks_away rename to tasks`);
    }
  });

  it('the API answers do not carry the pages’ headers', async () => {
    const answer = await fetched('/api/health');
    for (const name of ['content-security-policy', 'x-frame-options', 'referrer-policy']) expect(answer.header(name)).toBeNull();
  });
});

/** A Content-Security-Policy header as a map of directive name → sources. */
function directivesOf(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (!name) continue;
    expect(directives.has(name), `${name} appears twice in ${policy}`).toBe(false);
    directives.set(name, sources);
  }
  return directives;
}

/** What a page may be allowed: its own origin, a hash of its own inline text, and the two schemes a page can make itself. */
const OWN_SOURCE = /^('self'|'none'|'sha256-[A-Za-z0-9+/]+={0,2}'|data:|blob:|'unsafe-inline')$/;
const HASH = /^'sha256-[A-Za-z0-9+/]+={0,2}'$/;

/** A CSP hash source of a text: what allows exactly that inline text. */
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * Each page's policy: everything is refused (`default-src 'none'`) but what
 * the page loads, and only from its own origin. The browser tests show each
 * page working under it with no violation.
 */
const EXPECTED: Record<(typeof PAGES)[number], Record<string, (string | RegExp)[]>> = {
  '/': {
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    // The page's icon is an inline SVG data: URL.
    'img-src': ['data:'],
    'connect-src': ["'self'"],
  },
  '/docs': {
    'script-src': ["'self'"],
    // The one <style> Swagger UI writes: inside its top bar's logo.
    'style-src': ["'self'", HASH],
    // swagger-ui.css draws its icons as data: SVGs.
    'img-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
  },
  '/graphiql': {
    'script-src': ["'self'"],
    // Monaco and GraphiQL add <style> elements as they render.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Monaco underlines errors in the editor with data: SVGs.
    'img-src': ["'self'", 'data:'],
    // Its fonts (Monaco's icons among them) are data: URLs inside graphiql.css.
    'font-src': ['data:'],
    'connect-src': ["'self'"],
    'worker-src': ["'self'"],
  },
  '/versioning': {
    'style-src': [HASH],
  },
};

describe('the pages’ own headers', () => {
  it.each(PAGES)('%s: Content-Security-Policy, Referrer-Policy: no-referrer and X-Frame-Options: DENY, on GET and HEAD', async (path) => {
    for (const method of ['GET', 'HEAD']) {
      const answer = await fetched(path, { method });
      expect(answer.status).toBe(200);
      expect(answer.header('referrer-policy')).toBe('no-referrer');
      expect(answer.header('x-frame-options')).toBe('DENY');
      expect(answer.header('x-content-type-options')).toBe('nosniff');
      expect(answer.header('content-security-policy')).toBeTruthy();
    }
  });

  it.each(PAGES)('%s: its policy refuses everything but what the page loads from its own origin', async (path) => {
    const policy = (await fetched(path)).header('content-security-policy') ?? '';
    const directives = directivesOf(policy);
    // Refused unless named; no framing, no <base>, no form posts anywhere.
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    for (const [name, sources] of directives) {
      for (const source of sources) expect(source, `${name} in ${policy}`).toMatch(OWN_SOURCE);
    }
    const fixed = new Set(['default-src', 'frame-ancestors', 'base-uri', 'form-action']);
    const rest = Object.fromEntries([...directives].filter(([name]) => !fixed.has(name)));
    const expected = EXPECTED[path];
    expect(Object.keys(rest).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, sources] of Object.entries(expected)) {
      expect(rest[name], `${name} of ${path}`).toHaveLength(sources.length);
      sources.forEach((source, index) => expect(rest[name]![index]).toMatch(typeof source === 'string' ? new RegExp(`^${source}$`) : source));
    }
  });

  it.each(PAGES)('%s: runs no inline script, so no script source but its own origin is needed', async (path) => {
    const html = (await request<string>(`${server.url}${path}`)).text;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/[^/]/);
      expect(body!.trim()).toBe('');
    }
    // No inline event handlers either: script-src-attr falls back to script-src, which has no 'unsafe-inline'.
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  });

  it('/versioning: the hash in its policy is that of its one <style> block', async () => {
    const response = await request<string>(`${server.url}/versioning`);
    const style = /<style>([\s\S]*?)<\/style>/.exec(response.text)![1]!;
    expect(directivesOf(response.headers.get('content-security-policy')!).get('style-src')).toEqual([hashOf(style)]);
  });

  it('/docs: the hash in its policy is that of the <style> in the Swagger UI served here', async () => {
    const preset = (await request<string>(`${server.url}/docs/assets/swagger-ui-standalone-preset.js`)).text;
    // React elements as the preset creates them: createElement("style",null,"<css>").
    const styles = [...preset.matchAll(/createElement\("style",null,"([^"]*)"\)/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    const policy = (await fetched('/docs')).header('content-security-policy')!;
    expect(directivesOf(policy).get('style-src')).toEqual(["'self'", hashOf(styles[0]!)]);
  });
});

/** The head of the answer to `request`, sent as raw bytes: what node:http refuses before any handler runs. */
async function refusedHead(request: string): Promise<string> {
  return (await headBeforeClose(server.url, request)).toLowerCase();
}

describe('X-Content-Type-Options: nosniff on what node:http answers itself', () => {
  it.each([
    ['a request line that is not HTTP', 'GET /api/health HTTP/1.1 extra\r\n\r\n', 400],
    ['a header line without a colon', 'GET /api/health HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n', 400],
    ['both Content-Length and Transfer-Encoding', 'POST /api/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['a header block over 16 KiB', `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(17 * 1024)}\r\n\r\n`, 431],
    ['an Expect it cannot meet', 'GET /api/health HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n', 417],
    ['an HTTP/1.1 request without Host', 'GET /api/health HTTP/1.1\r\n\r\n', 400],
  ])('%s', async (_name, request, status) => {
    const head = await refusedHead(request);
    expect(head).toMatch(new RegExp(`^http/1\\.1 ${status} `));
    expect(head).toContain('x-content-type-options: nosniff');
    expect(head).toContain('connection: close');
  });
});
