import fc from 'fast-check';
import type { RawRequest } from './raw-http.ts';

/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface Operation {
  method: string;
  /** The templated path, e.g. /api/tasks/{id}. */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  /** Property names of the JSON request body, when there is one. */
  bodyProperties: string[] | undefined;
  documented: Set<number>;
}

type OpenApiParameter = { in: string; name: string };
type OpenApiOperation = {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  responses: Record<string, unknown>;
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
          pathParameters: named('path'),
          queryParameters: named('query'),
          bodyProperties: json ? Object.keys(json.schema?.properties ?? {}) : undefined,
          documented: new Set(Object.keys(operation.responses).map(Number)),
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

const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.uuid());

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
);

function objectBody(properties: string[]): fc.Arbitrary<Record<string, unknown>> {
  const keys = fc.oneof(fc.constantFrom(...properties, '__proto__', 'constructor', 'extra'), fc.string({ maxLength: 12 }));
  return fc.dictionary(keys, jsonValue, { maxKeys: properties.length + 2 });
}

/** Values that are valid somewhere, so that some requests get past validation and reach the services. */
const plausible = fc.constantFrom<unknown>(
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
);

function nearlyValidBody(properties: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(fc.subarray(properties), fc.array(plausible, { minLength: properties.length, maxLength: properties.length }))
    .map(([chosen, values]) => Object.fromEntries(chosen.map((property, index) => [property, values[index]])));
}

/** Request bodies: JSON of every shape, and bytes that are not JSON or not UTF-8 at all. */
function bodyFor(operation: Operation): fc.Arbitrary<Buffer | undefined> {
  const properties = operation.bodyProperties ?? ['title'];
  return fc.oneof(
    { weight: 6, arbitrary: nearlyValidBody(properties).map((body) => Buffer.from(JSON.stringify(body))) },
    { weight: 4, arbitrary: objectBody(properties).map((body) => Buffer.from(JSON.stringify(body))) },
    { weight: 2, arbitrary: jsonValue.map((body) => Buffer.from(JSON.stringify(body) ?? 'null')) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.from('{"title":"\u0000"}'),
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
