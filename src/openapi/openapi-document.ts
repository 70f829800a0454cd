import type { AnyTRPCRouter } from '@trpc/server';
import { forEachOpenApiProcedure, generateOpenApiDocument, normalizePath, type OpenAPIObject } from 'trpc-to-openapi';
import type { AccessMeta } from '../procedures/meta.ts';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { HttpMeta } from '../procedures/http-meta.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../errors/database-unavailable.ts';
import { problemTypes } from '../errors/problem-types.ts';
import { problemSchema } from '../http/problem-schema.ts';
import { MAX_BODY_BYTES } from '../http/read-json-body.ts';

type JsonObject = Record<string, unknown>;
type ResponseObject = { description: string; headers?: JsonObject; content?: JsonObject };

const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const errorDescriptions: Record<string, string> = {
  '400': 'Bad request: a body that is not JSON, an unsupported API-Version, or a missing or malformed Idempotency-Key',
  '409': 'A request with this Idempotency-Key is still in progress',
  '401': 'Missing, malformed or invalid credentials (an invalid credential is refused on every endpoint)',
  '403': 'The credential lacks the scope, or is a token where a key is needed, or is not the key being revoked, or is a token whose key is revoked, expired or gone',
  '404': 'Not found',
  '412': 'The resource has changed (If-Match did not match)',
  '413': `Request body larger than ${MAX_BODY_BYTES / 1024} KiB`,
  '422': "The request isn't valid (`errors` lists each field), or its Idempotency-Key was used with a different request",
  '429': 'Rate limit exceeded; retry after Retry-After seconds',
  '500': 'Unexpected failure',
  '503': 'Service unavailable: the database cannot be reached or every connection stayed busy (retry after Retry-After)',
};

const header = (description: string, schema: JsonObject = { type: 'string' }, required = true) => ({ required, schema, description });

const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': header('The limit: "<name>";q=<limit>;w=<window seconds>'),
  RateLimit: header('This window: "<name>";r=<remaining>;t=<seconds until reset>'),
};

/**
 * The OpenAPI 3.1 document: generated from the router by trpc-to-openapi,
 * then corrected from each route's HttpMeta and AccessMeta so that it tells
 * the truth about success statuses, headers, security and problem+json errors.
 */
export function buildOpenApiDocument(router: AnyTRPCRouter, baseUrl: string, rawRoutes: ZodOpenApiPathsObject = {}): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Lab API',
    description: 'Tasks, API keys, leaderboards and events, as REST, tRPC and GraphQL.',
    version: '1.0.0',
    openApiVersion: '3.1.0',
    baseUrl,
    defs: { Problem: problemSchema },
    paths: rawRoutes,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'An API key (lab_…) or a JWT from POST /api/token' },
    },
  });

  forEachOpenApiProcedure(router._def.procedures, ({ meta }) => {
    const path = normalizePath(meta.openapi.path);
    const method = meta.openapi.method.toLowerCase();
    const operation = (document.paths?.[path] as JsonObject | undefined)?.[method] as JsonObject | undefined;
    if (!operation) return;
    const { http = {}, access = {} } = meta as { http?: HttpMeta; access?: AccessMeta };
    operation.security = securityOf(access);
    const declared = meta.openapi.errorResponses ?? [];
    const declaredErrors = (Array.isArray(declared) ? declared : Object.keys(declared)).map(String);
    operation.responses = correctResponses(operation.responses as Record<string, ResponseObject>, method, { http, access, declaredErrors });
    forbidUnknownBodyFields(operation);
  });

  for (const name of Object.keys(document.components?.schemas ?? {})) {
    if (name.startsWith('error.')) delete document.components!.schemas![name];
  }
  return document;
}

/** Public routes take a credential or none; protected ones need one, named with its scope (OAS 3.1 roles). */
function securityOf(access: AccessMeta): JsonObject[] {
  if (!access.requires) return [{}, { bearer: [] }];
  const isScope = access.requires !== 'credentials' && access.requires !== 'api-key';
  return [{ bearer: isScope ? [access.requires] : [] }];
}

function correctResponses(
  responses: Record<string, ResponseObject>,
  method: string,
  { http, access, declaredErrors }: { http: HttpMeta; access: AccessMeta; declaredErrors: string[] },
): Record<string, ResponseObject> {
  const corrected: Record<string, ResponseObject> = {};
  const fixedHeaders = constantHeaders(http.fixedHeaders);
  const successHeaders = constantHeaders(http.successHeaders);
  const limitHeaders = access.rateLimit ? RATE_LIMIT_HEADERS : {};
  const entityTagHeaders: JsonObject = http.entityTag
    ? {
        ETag: header('Strong entity tag of this representation'),
        ...(method === 'get' ? { 'Cache-Control': header('Always revalidate', { type: 'string', const: 'no-cache' }) } : {}),
      }
    : {};
  const ownHeaders = Object.fromEntries(
    Object.entries(http.responseHeaders ?? {}).map(([name, own]) => [
      name,
      header(own.description, own.values ? { type: 'string', enum: [...own.values] } : { type: 'string' }, own.required ?? false),
    ]),
  );

  const success = responses['200'];
  const status = String(http.successStatus ?? 200);
  if (success) {
    const content = http.contentType
      ? { [http.contentType.split(';')[0]!]: { schema: { type: 'string' } } }
      : (success.content ?? {});
    corrected[status] = {
      description: { '200': 'OK', '201': 'Created', '204': 'No content' }[status] ?? success.description,
      headers: { ...entityTagHeaders, ...ownHeaders, ...fixedHeaders, ...successHeaders, ...limitHeaders },
      ...(status === '204' ? {} : { content }),
    };
  }
  if (http.entityTag && method === 'get') {
    corrected['304'] = {
      description: 'Not modified: If-None-Match matched the current ETag; no body',
      headers: { ...entityTagHeaders, ...fixedHeaders },
    };
  }

  // Any route can meet an invalid credential (401), an unexpected failure (500) or a database out of reach (503).
  const errorStatuses = new Set([...declaredErrors, ...BEFORE_THE_ROUTE]);
  if (access.requires && access.requires !== 'credentials') errorStatuses.add('403');
  if (access.rateLimit) errorStatuses.add('429');
  for (const code of [...errorStatuses].sort()) {
    // What the route adds once reached is certain only on answers the route alone gives.
    const routeHeaders = { ...fixedHeaders, ...(access.rateLimit ? limitHeaders : {}) };
    const headers: JsonObject = BEFORE_THE_ROUTE.has(code) ? optional(routeHeaders) : routeHeaders;
    if (code === '401' || code === '403') {
      headers['WWW-Authenticate'] = header('Bearer challenge: realm, and error / error_description / scope as RFC 6750 says', undefined, code === '401');
    }
    if (code === '429') Object.assign(headers, { 'Retry-After': header('Whole seconds until the window ends', { type: 'integer', minimum: 1 }) });
    if (code === '409') {
      const seconds = problemTypes['request-in-progress'].retryAfter;
      Object.assign(headers, { 'Retry-After': header(`Always ${seconds}: retry in a second`, { type: 'integer', const: seconds }) });
    }
    if (code === '503') {
      // POST /api/token's other 503, no signing secret configured, is not worth a retry and carries no Retry-After.
      const seconds = DATABASE_RETRY_AFTER_SECONDS;
      Object.assign(headers, { 'Retry-After': header(`${seconds} when the database is out of reach: retry in a second`, { type: 'integer', const: seconds }, !declaredErrors.includes('503')) });
    }
    const signingSecret = code === '503' && declaredErrors.includes('503');
    corrected[code] = {
      description: signingSecret
        ? `Service unavailable: no signing secret is configured, or the database cannot be reached (then with Retry-After: ${DATABASE_RETRY_AFTER_SECONDS})`
        : (errorDescriptions[code] ?? responses[code]?.description ?? 'Error'),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: PROBLEM_CONTENT,
    };
  }
  return corrected;
}

/**
 * Answers that can come before the route runs: a credential that fails is
 * refused before routing (401), and an unexpected failure (500) or the
 * database out of reach (503) can happen there too. On them, the headers the
 * route adds (its fixed headers, its RateLimit count) may be missing.
 */
const BEFORE_THE_ROUTE = new Set(['401', '500', '503']);

function optional(headers: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { ...(value as JsonObject), required: false }]));
}

function constantHeaders(headers: Record<string, string> = {}): JsonObject {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, header(`Always \`${value}\``, { type: 'string', const: value })]),
  );
}

/** docs/spec/SPEC.md: unknown body fields are rejected on every route, PATCH included. */
function forbidUnknownBodyFields(operation: JsonObject): void {
  const body = operation.requestBody as { content?: Record<string, { schema?: JsonObject }> } | undefined;
  const schema = body?.content?.['application/json']?.schema;
  if (schema && schema.type === 'object') schema.additionalProperties = false;
}
