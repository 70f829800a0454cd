import fc from 'fast-check';
import type { RawRequest } from './raw-http.ts';

/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface Operation {
  method: string;
  /** The templated path, e.g. /api/tasks/{id}. */
  path: string;
  /** Matches the paths this operation serves: each parameter one non-empty segment. */
  pattern: RegExp;
  pathParameters: string[];
  queryParameters: string[];
  /** Property names of the JSON request body, when there is one. */
  bodyProperties: string[] | undefined;
  /** The body's property schemas, as the document gives them. */
  bodySchema: Record<string, PropertySchema>;
  documented: Set<number>;
  /** Per documented status, the response headers the document marks required (lower case). */
  requiredHeaders: Map<number, string[]>;
}

type OpenApiParameter = { in: string; name: string };
/** The parts of a JSON Schema the fuzzer builds valid values from. */
export interface PropertySchema {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: PropertySchema;
}

type OpenApiOperation = {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, PropertySchema> } }> };
  responses: Record<string, { headers?: Record<string, { required?: boolean }> }>;
};

export function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const named = (where: string) => parameters.filter((parameter) => parameter.in === where).map((parameter) => parameter.name);
        const json = operation.requestBody?.content['application/json'];
        return {
          method: method.toUpperCase(),
          path,
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
          pathParameters: named('path'),
          queryParameters: named('query'),
          bodyProperties: json ? Object.keys(json.schema?.properties ?? {}) : undefined,
          bodySchema: json?.schema?.properties ?? {},
          documented: new Set(Object.keys(operation.responses).map(Number)),
          requiredHeaders: new Map(
            Object.entries(operation.responses).map(([status, response]) => [
              Number(status),
              Object.entries(response.headers ?? {})
                .filter(([, header]) => header.required)
                .map(([name]) => name.toLowerCase()),
            ]),
          ),
        };
      }),
  );
}

/** Strings that have broken parsers before: numbers at the edges, prototype keys, encodings, control bytes. */
const nasty = fc.constantFrom(
  '',
  ' ',
  '0',
  '-0',
  '-1',
  '1.5',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '9007199254740993',
  '99999999999999999999999999',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '\u0000',
  'a\u0000b',
  '\uFEFF',
  '\uD800',
  '😀',
  '../../etc/passwd',
  '%',
  '%zz',
  '%00',
  '%C0%AF',
  "' or 1=1 --",
  '"',
  '\\',
  '<script>',
  'x'.repeat(5000),
);

/** Characters that have broken storage and rendering: NUL, C0/C1 controls, lone and reversed surrogates, bidi overrides, line separators. */
const ODD_CHARACTERS = ['\u0000', '\u0001', '\u0008', '\u000b', '\u001b', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', '\u202e', '\ufeff', '\ud800', '\udfff', '\udc00\ud800', '\uffff'];

/** Text that is nearly plausible, with odd characters put in anywhere: JSON.stringify escapes them, so the body stays valid JSON. */
export const oddText = fc
  .tuple(fc.constantFrom('a task', 'ABC', 'https://example.com/hook', 'key', ''), fc.array(fc.tuple(fc.nat(20), fc.constantFrom(...ODD_CHARACTERS)), { minLength: 1, maxLength: 3 }))
  .map(([base, insertions]) => insertions.reduce<string>((value, [at, odd]) => value.slice(0, at) + odd + value.slice(at), base));

const text = fc.oneof(nasty, oddText, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.uuid());

/** What node:http lets a client put in a header value: tab, visible ASCII, Latin-1. */
const HEADER_ALPHABET = [...'\t !"#%&\'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~\u00e9\u00ff'];
const headerText = fc.oneof(
  nasty.filter((value) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)),
  fc.string({ unit: fc.constantFrom(...HEADER_ALPHABET), maxLength: 60 }),
  fc.uuid(),
  fc.constant('a'.repeat(4000)),
);

/** Any JSON value, with the deep, wide and hostile shapes added. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: nasty },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -(2 ** 31), 0.1, 1, 100, 10_000_000) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 70 }).map((depth) => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) as unknown) },
);

/** A JSON text nested `depth` deep, of arrays or of objects: to check the 64-level rule exactly. */
export function nestedJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`;
}

function objectBody(properties: string[]): fc.Arbitrary<Record<string, unknown>> {
  const keys = fc.oneof(fc.constantFrom(...properties, '__proto__', 'constructor', 'extra'), fc.string({ maxLength: 12 }));
  return fc.dictionary(keys, jsonValue, { maxKeys: properties.length + 2 });
}

/** Values that are valid somewhere, so that some requests get past validation and reach the services. */
const plausible: fc.Arbitrary<unknown> = fc.oneof({ weight: 1, arbitrary: oddText }, { weight: 4, arbitrary: fc.constantFrom<unknown>(
  'demo',
  'runner',
  'marble',
  'ABC',
  'abc',
  'a task',
  '',
  'https://example.com/hook',
  'http://127.0.0.1:9/hook',
  'http://169.254.169.254/latest',
  ['stats:read'],
  ['tasks:export', 'stats:read'],
  ['admin'],
  ['score.submitted'],
  true,
  false,
  0,
  1,
  42,
  500,
  20_001,
  3_600_000,
  -1,
  null,
) });

function nearlyValidBody(properties: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.subarray(properties), fc.array(plausible, { minLength: properties.length, maxLength: properties.length }))
    .map(([chosen, values]) => Object.fromEntries(chosen.map((property, index) => [property, values[index]])));
}

/** Values the document's rules cannot tell: a URL the SSRF guard accepts without a DNS lookup. */
const KNOWN_GOOD: Record<string, unknown> = { url: 'https://93.184.215.14/hook' };

/** A value its schema accepts, so that the request reaches the service and its database. */
function validValue(name: string, schema: PropertySchema): fc.Arbitrary<unknown> {
  if (name in KNOWN_GOOD) return fc.constant(KNOWN_GOOD[name]);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === 'string' && schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  if (schema.type === 'string') return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 30, 30) }).filter((value) => value.trim() !== '');
  if (schema.type === 'integer') return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 500, 500) });
  if (schema.type === 'boolean') return fc.boolean();
  if (schema.type === 'array' && schema.items?.enum) return fc.subarray(schema.items.enum, { minLength: 1, maxLength: schema.maxItems ?? schema.items.enum.length });
  return fc.constant(undefined);
}

/**
 * A body the document's schemas accept, with one string field poisoned by odd
 * characters (NUL, controls, lone surrogates, …): such a request passes every
 * other rule and reaches storage, where an unchecked NUL used to be a 500.
 */
function poisonedBody(operation: Operation): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(operation.bodySchema);
  const strings = entries.filter(([, schema]) => schema.type === 'string' && !schema.enum).map(([name]) => name);
  const valid = fc.record(Object.fromEntries(entries.map(([name, schema]) => [name, validValue(name, schema)])));
  if (strings.length === 0) return valid;
  return fc.tuple(valid, fc.constantFrom(...strings), fc.array(fc.tuple(fc.nat(40), fc.constantFrom(...ODD_CHARACTERS)), { minLength: 1, maxLength: 3 })).map(([body, name, insertions]) => ({
    ...body,
    [name]: insertions.reduce<string>((value, [at, odd]) => value.slice(0, at) + odd + value.slice(at), String(body[name] ?? '')),
  }));
}

/** Request bodies: JSON of every shape, and bytes that are not JSON or not UTF-8 at all. */
function bodyFor(operation: Operation): fc.Arbitrary<Buffer | undefined> {
  const properties = operation.bodyProperties ?? ['title'];
  return fc.oneof(
    { weight: 5, arbitrary: poisonedBody(operation).map((body) => Buffer.from(JSON.stringify(body))) },
    { weight: 6, arbitrary: nearlyValidBody(properties).map((body) => Buffer.from(JSON.stringify(body))) },
    { weight: 4, arbitrary: objectBody(properties).map((body) => Buffer.from(JSON.stringify(body))) },
    { weight: 2, arbitrary: jsonValue.map((body) => Buffer.from(JSON.stringify(body) ?? 'null')) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.from('{"title":"\u0000"}'),
        Buffer.from('{"title":"a\\u0000b","name":"\\u0000","url":"https://example.com/\\u0000","initials":"A\\u0000B","description":"\\u0000"}'),
        Buffer.from('{"title":"\\ud800","name":"\\udfff\\ud800"}'),
        Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
        Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
        Buffer.from('{"title":"a","title":"b"}'),
        Buffer.from('{'.repeat(100_000)),
        Buffer.from(`{"title":${'['.repeat(30_000)}${']'.repeat(30_000)}}`),
        Buffer.from(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
        Buffer.from(`{"title":"${'x'.repeat(70 * 1024)}"}`),
        Buffer.from(`{"title":"${'x'.repeat(60 * 1024)}"}`),
        Buffer.from('not json'),
        Buffer.from(''),
        Buffer.from('\uFEFF{"title":"bom"}'),
        Buffer.from('{"title": 1e999999}'),
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...properties), fc.integer({ min: 62, max: 2000 }), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([property, depth, kind]) => Buffer.from(`{"${property}":${nestedJson(depth, kind)}}`)),
    },
  );
}

/** Percent-encoding of any string; a lone surrogate becomes U+FFFD, as a browser would send it. */
const percentEncode = (value: string) => encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));

/** Path parameter values, percent-encoded or raw (within what a request line can carry). */
const pathValue = fc.oneof(
  fc.uuid(),
  text.map(percentEncode),
  fc.constantFrom('%', '%zz', '%00', '%2F', '..', '.', '%2e%2e', 'a/b', '%E0%A4%A', '\u00e9', 'x'.repeat(3000)),
);

const queryValue = fc.oneof(text.map(percentEncode), fc.constantFrom('%', '%zz', '%00', '1&limit=2', '[]', 'a%2Cb'));

function queryFor(operation: Operation): fc.Arbitrary<string> {
  const names = fc.oneof(fc.constantFrom(...operation.queryParameters, 'limit', '__proto__', 'constructor', 'x'), fc.string({ maxLength: 8 }).map(percentEncode));
  return fc
    .array(fc.tuple(names, queryValue), { maxLength: 5 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`));
}

export interface Credentials {
  key: string;
  token: string;
}

type Header = [string, string | string[]];

function headersFor(credentials: Credentials): fc.Arbitrary<Header[]> {
  // Mostly no credential or a valid one, so that most requests get past authentication.
  const authorization = fc.oneof(
    { weight: 3, arbitrary: fc.constant<string | string[]>(`Bearer ${credentials.key}`) },
    { weight: 3, arbitrary: fc.constant<string | string[]>(`Bearer ${credentials.token}`) },
    { weight: 1, arbitrary: headerText.map<string | string[]>((value) => `Bearer ${value}`) },
    { weight: 1, arbitrary: headerText.map<string | string[]>((value) => `Basic ${value}`) },
    { weight: 1, arbitrary: fc.constant<string | string[]>(`Bearer ${credentials.token.slice(0, -4)}AAAA`) },
    { weight: 1, arbitrary: fc.constant<string | string[]>(['Bearer a', `Bearer ${credentials.key}`]) },
    { weight: 1, arbitrary: headerText },
  );
  const named = (name: string, value: fc.Arbitrary<string | string[]>, absentWeight = 1) =>
    fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value.map((v): Header => [name, v]) });
  const twice = (value: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 4, arbitrary: value.map<string | string[]>((v) => v) }, { weight: 1, arbitrary: fc.tuple(value, value).map<string | string[]>(([a, b]) => [a, b]) });
  return fc
    .tuple(
      named('Authorization', authorization, 1),
      named('Content-Type', fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '')),
      named('Idempotency-Key', twice(fc.oneof(fc.uuid(), headerText, fc.uuid().map((key) => `"${key}"`)))),
      named('If-Match', twice(fc.oneof(headerText, fc.constantFrom('*', '"x"', 'W/"x"', '"a", "b"')))),
      named('If-None-Match', twice(fc.oneof(headerText, fc.constantFrom('*', '"x"', 'W/"x"')))),
      named('Api-Version', twice(fc.oneof(headerText, fc.constantFrom('1', '2', '0', '-1', '1.0')))),
      named('Last-Event-ID', headerText),
      named('X-Forwarded-For', fc.oneof(fc.ipV4(), fc.ipV6(), headerText)),
      named('Accept', fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html', 'application/problem+json')),
    )
    .map((entries) => entries.filter((entry): entry is Header => entry !== undefined));
}

export interface FuzzCase {
  operation: Operation;
  request: RawRequest;
  /** The path part of the target, as the problem's `instance` must echo it. */
  rawPath: string;
}

export function fuzzCase(operations: Operation[], credentials: Credentials): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({
        values: fc.array(pathValue, { minLength: operation.pathParameters.length, maxLength: operation.pathParameters.length }),
        query: queryFor(operation),
        headers: headersFor(credentials),
        body: operation.bodyProperties ? bodyFor(operation) : fc.constant(undefined),
      })
      .map(({ values, query, headers, body }) => {
        let rawPath = operation.path;
        operation.pathParameters.forEach((name, index) => (rawPath = rawPath.replace(`{${name}}`, values[index]!)));
        return { operation, rawPath, request: { method: operation.method, target: `${rawPath}${query}`, headers, body } };
      }),
  );
}
