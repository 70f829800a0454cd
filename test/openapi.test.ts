import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/http.ts';
import { useTestServer } from './support/test-server.ts';

interface Operation {
  deprecated?: boolean;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; schema?: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { headers?: Record<string, { schema?: { const?: string; enum?: string[] } }>; content?: Record<string, { schema?: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const server = useTestServer();
let document: Document;
beforeAll(async () => {
  const response = await request<Document>(`${server.url}/api/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  document = response.body;
});

const op = (path: string, method: string): Operation => {
  const operation = document.paths[path]?.[method];
  if (!operation) throw new Error(`${method} ${path} is not documented`);
  return operation;
};

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1.0 document, version 1.0.0, one server at BASE_URL', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers).toEqual([{ url: server.baseUrl }]);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('documents the real success statuses', () => {
    expect(Object.keys(op('/api/tasks', 'post').responses)).toContain('201');
    expect(Object.keys(op('/api/tasks', 'post').responses)).not.toContain('200');
    expect(op('/api/tasks/{id}', 'delete').responses['204']).toBeDefined();
    expect(op('/api/tasks/{id}', 'delete').responses['204']!.content).toBeUndefined();
    expect(op('/api/tasks', 'get').responses['304']).toBeDefined();
    expect(op('/api/tasks/{id}', 'get').responses['304']).toBeDefined();
    expect(op('/api/v2/tasks', 'get').responses['304']).toBeUndefined();
  });

  it('documents every error as problem+json with the Problem schema', () => {
    expect(document.components.schemas.Problem).toBeDefined();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          expect(response.content, `${method} ${path} ${status}`).toEqual({
            'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
          });
        }
        expect(operation.responses['500'], `${method} ${path}`).toBeDefined();
      }
    }
    expect(Object.keys(op('/api/tasks/{id}', 'patch').responses)).toEqual(expect.arrayContaining(['404', '412', '422']));
  });

  it('documents response headers', () => {
    const created = op('/api/tasks', 'post').responses['201']!.headers!;
    expect(Object.keys(created)).toEqual(expect.arrayContaining(['Location', 'ETag']));
    const read = op('/api/tasks/{id}', 'get').responses['200']!.headers!;
    expect(Object.keys(read)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'API-Version', 'Vary']));
    expect(Object.keys(op('/api/tasks', 'get').responses['200']!.headers!)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'Link']));
    const v0 = op('/api/v0/tasks', 'get');
    expect(v0.deprecated).toBe(true);
    expect(v0.responses['200']!.headers!.Deprecation!.schema!.const).toBe('@1790812800');
    expect(v0.responses['200']!.headers!.Sunset!.schema!.const).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(Object.keys(v0.responses['200']!.headers!)).toContain('Link');
  });

  it('documents request headers and rejects unknown body fields', () => {
    const names = (operation: Operation) => (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
    expect(names(op('/api/tasks/{id}', 'get'))).toEqual(expect.arrayContaining(['api-version', 'if-none-match']));
    expect(names(op('/api/tasks/{id}', 'patch'))).toContain('if-match');
    expect(names(op('/api/tasks/{id}', 'delete'))).toContain('if-match');
    expect(op('/api/tasks/{id}', 'patch').requestBody!.content['application/json']!.schema.additionalProperties).toBe(false);
    expect(op('/api/tasks', 'post').requestBody!.content['application/json']!.schema.additionalProperties).toBe(false);
  });

  it('describes the done filter as the boolean a query string carries as true or false, for generated clients', () => {
    for (const path of ['/api/tasks', '/api/v2/tasks']) {
      const done = op(path, 'get').parameters?.find((parameter) => parameter.name === 'done');
      expect(done, path).toMatchObject({ in: 'query', schema: { type: 'boolean' } });
      expect(done?.schema, path).not.toHaveProperty('enum');
    }
  });

  it('says which versions a task read offers, which is the default, and that its body is one of the two', () => {
    const read = op('/api/tasks/{id}', 'get');
    const apiVersion = read.parameters?.find((parameter) => parameter.name === 'api-version');
    expect(apiVersion).toMatchObject({ in: 'header', schema: { type: 'string', enum: ['1', '2'], default: '1' } });
    expect(apiVersion).not.toHaveProperty('required', true);
    expect(read.responses['200']!.headers!['API-Version']!.schema).toEqual({ type: 'string', enum: ['1', '2'] });
    expect(read.responses['200']!.content!['application/json']!.schema).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/Task' }, { $ref: '#/components/schemas/TaskV2' }],
      description: expect.stringContaining('API-Version'),
    });
  });

  it('declares the HTTP bearer scheme and which operations need it, with their scope', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(op('/api/tasks', 'get').security).toEqual([{}, { bearer: [] }]);
    expect(op('/api/me', 'get').security).toEqual([{ bearer: [] }]);
    expect(op('/api/token', 'post').security).toEqual([{ bearer: [] }]);
    expect(op('/api/keys/{id}', 'delete').security).toEqual([{ bearer: [] }]);
    expect(op('/api/stats', 'get').security).toEqual([{ bearer: ['stats:read'] }]);
    expect(op('/api/export/tasks', 'get').security).toEqual([{ bearer: ['tasks:export'] }]);
  });

  it('documents 401, 403 and 429 with their headers, and the CSV export as text/csv', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(Object.keys(operation.responses['401']!.headers!), `${method} ${path}`).toContain('WWW-Authenticate');
      }
    }
    expect(Object.keys(op('/api/stats', 'get').responses['403']!.headers!)).toContain('WWW-Authenticate');
    for (const [path, method] of [['/api/tasks', 'post'], ['/api/keys', 'post'], ['/api/token', 'post'], ['/api/limits/demo', 'get']] as const) {
      const operation = op(path, method);
      expect(Object.keys(operation.responses['429']!.headers!)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Policy', 'RateLimit']));
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))![1];
      expect(Object.keys(success.headers!)).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
    }
    const csv = op('/api/export/tasks', 'get').responses['200']!;
    expect(Object.keys(csv.content!)).toEqual(['text/csv']);
    expect(Object.keys(csv.headers!)).toContain('Content-Disposition');
    expect(op('/api/token', 'post').responses['503']).toBeDefined();
  });

  it('documents idempotent score submission and the event stream', () => {
    const submit = op('/api/scores', 'post');
    const key = (submit.parameters as { in: string; name: string; required?: boolean }[]).find((p) => p.name.toLowerCase() === 'idempotency-key');
    expect(key).toMatchObject({ in: 'header', required: true });
    expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '422', '429']));
    expect(Object.keys(submit.responses['409']!.headers!)).toContain('Retry-After');
    expect(Object.keys(submit.responses['201']!.headers!)).toContain('Idempotent-Replayed');
    const stream = op('/api/scores/stream', 'get');
    expect(Object.keys(stream.responses['200']!.content!)).toEqual(['text/event-stream']);
    expect(stream.responses['422']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect((stream.parameters ?? []).map((p) => p.name.toLowerCase())).toEqual(expect.arrayContaining(['game', 'limit', 'last-event-id']));
    expect(op('/api/scores', 'get').responses['304']).toBeDefined();
  });

  it('documents the webhook routes, which need credentials', () => {
    for (const [path, method, success] of [
      ['/api/webhooks', 'post', '201'],
      ['/api/webhooks', 'get', '200'],
      ['/api/webhooks/{id}', 'get', '200'],
      ['/api/webhooks/{id}', 'delete', '204'],
      ['/api/webhooks/{id}/deliveries', 'get', '200'],
    ] as const) {
      const operation = op(path, method);
      expect(operation.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
      expect(operation.responses[success], `${method} ${path}`).toBeDefined();
      expect(operation.responses['401'], `${method} ${path}`).toBeDefined();
    }
  });

  it('matches the committed contract (run `npm run contracts` after a deliberate change)', async () => {
    const contract = JSON.parse(await readFile(new URL('./contracts/openapi.json', import.meta.url), 'utf8')) as Document;
    expect({ ...document, servers: contract.servers }).toEqual(contract);
  });
});
