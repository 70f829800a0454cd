import { describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { useTestServer } from './support/test-server.ts';

const server = useTestServer();

/** Every src= and href= of a page: none may leave the service (no CDN, no internet here). */
function externalReferences(html: string): string[] {
  return [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((match) => match[1]!).filter((url) => /^(https?:)?\/\//.test(url));
}

describe('GET /docs', () => {
  it('serves Swagger UI, loading only its own assets and /api/openapi.json', async () => {
    const response = await request<string>(`${server.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(externalReferences(response.text)).toEqual([]);
    // Started by a script of its own, not an inline one (the page's Content-Security-Policy allows no inline script).
    expect(response.text).toContain('<script src="/docs/assets/start.js"></script>');
    const start = await request<string>(`${server.url}/docs/assets/start.js`);
    expect(start.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(start.text).toContain("url: '/api/openapi.json'");
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js']) {
      expect(response.text).toContain(`/docs/assets/${asset}`);
      const file = await fetch(`${server.url}/docs/assets/${asset}`);
      expect(file.status).toBe(200);
      expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });

  it('serves nothing else from the asset folder', async () => {
    for (const name of ['package.json', '..%2Fpackage.json', 'index.html', '']) {
      expect((await request(`${server.url}/docs/assets/${name}`)).status).toBe(404);
    }
  });
});

describe('GET /graphiql', () => {
  it('serves GraphiQL loading its own assets, with a fetcher for /api/graphql', async () => {
    const response = await request<string>(`${server.url}/graphiql`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(externalReferences(response.text)).toEqual([]);
    // Started by a script of its own after the bundle and graphql-sse's client, not an inline one.
    expect(response.text).toContain(
      '<script src="/graphiql/assets/graphiql.js"></script>\n  <script src="/graphiql/assets/graphql-sse.js"></script>\n  <script src="/graphiql/assets/start.js"></script>',
    );
    const start = await request<string>(`${server.url}/graphiql/assets/start.js`);
    expect(start.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(start.text).toContain('fetcher: graphiqlFetcher("/api/graphql")');
    // graphql-sse's browser build, from the installed package: the global the fetcher's subscriptions use.
    const client = await request<string>(`${server.url}/graphiql/assets/graphql-sse.js`);
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(client.text).toContain('graphqlSse');
    expect(client.text).toContain('createClient');
  });
});

describe('GET /versioning', () => {
  it('states what is deprecated, the dates and the successor', async () => {
    const response = await request<string>(`${server.url}/versioning`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('GET /api/v0/tasks');
    expect(response.text).toContain('2026-10-01');
    expect(response.text).toContain('@1790812800');
    expect(response.text).toContain('2027-06-30');
    expect(response.text).toContain('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(response.text).toContain('GET /api/tasks');
  });

  it('is where the v0 deprecation link points', async () => {
    const v0 = await request(`${server.url}/api/v0/tasks`);
    const target = /<([^>]+)>; rel="deprecation"/.exec(v0.headers.get('link')!)![1]!;
    expect((await request(`${server.url}${target}`)).status).toBe(200);
  });
});
