import type { AnyTRPCRouter } from '@trpc/server';
import { forEachOpenApiProcedure, generateOpenApiDocument, normalizePath, type OpenAPIObject } from 'trpc-to-openapi';
import type { HttpMeta } from './http-meta.ts';
import { problemSchema } from './problem-schema.ts';

type JsonObject = Record<string, unknown>;
type ResponseObject = { description: string; headers?: JsonObject; content?: JsonObject };

const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const errorDescriptions: Record<string, string> = {
  '400': 'Bad request (invalid JSON, or a header with an unsupported value)',
  '404': 'Not found',
  '412': 'The resource has changed (If-Match did not match)',
  '413': 'Request body larger than 64 KiB',
  '422': "The request isn't valid; `errors` lists each field",
  '500': 'Unexpected failure',
};

/**
 * The OpenAPI 3.1 document: generated from the router by trpc-to-openapi,
 * then corrected from each route's HttpMeta so that it tells the truth about
 * success statuses, headers and problem+json errors (PITFALLS).
 */
export function buildOpenApiDocument(router: AnyTRPCRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Lab API',
    description: 'Tasks, API keys, leaderboards and events, as REST, tRPC and GraphQL.',
    version: '1.0.0',
    openApiVersion: '3.1.0',
    baseUrl,
    defs: { Problem: problemSchema },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (lab_…) or a JWT' } },
  });

  forEachOpenApiProcedure(router._def.procedures, ({ meta }) => {
    const path = normalizePath(meta.openapi.path);
    const method = meta.openapi.method.toLowerCase();
    const operation = (document.paths?.[path] as JsonObject | undefined)?.[method] as JsonObject | undefined;
    if (!operation) return;
    const http = (meta as { http?: HttpMeta }).http ?? {};
    // Credentials are optional on public routes: anonymous or Bearer.
    operation.security = [{}, { bearer: [] }];
    operation.responses = correctResponses(operation.responses as Record<string, ResponseObject>, method, http);
    forbidUnknownBodyFields(operation);
  });

  for (const name of Object.keys(document.components?.schemas ?? {})) {
    if (name.startsWith('error.')) delete document.components!.schemas![name];
  }
  return document;
}

function correctResponses(responses: Record<string, ResponseObject>, method: string, http: HttpMeta): Record<string, ResponseObject> {
  const corrected: Record<string, ResponseObject> = {};
  const fixedHeaders = Object.fromEntries(
    Object.entries(http.fixedHeaders ?? {}).map(([name, value]) => [
      name,
      { required: true, schema: { type: 'string', const: value }, description: `Always \`${value}\`` },
    ]),
  );
  const entityTagHeaders: JsonObject = http.entityTag
    ? {
        ETag: { required: true, schema: { type: 'string' }, description: 'Strong entity tag of this representation' },
        ...(method === 'get'
          ? { 'Cache-Control': { required: true, schema: { type: 'string', const: 'no-cache' }, description: 'Always revalidate' } }
          : {}),
      }
    : {};
  const ownHeaders = Object.fromEntries(
    Object.entries(http.responseHeaders ?? {}).map(([name, header]) => [
      name,
      { required: header.required ?? false, schema: { type: 'string' }, description: header.description },
    ]),
  );

  const success = responses['200'];
  const status = String(http.successStatus ?? 200);
  if (success) {
    corrected[status] = {
      description: { '200': 'OK', '201': 'Created', '204': 'No content' }[status] ?? success.description,
      headers: { ...entityTagHeaders, ...ownHeaders, ...fixedHeaders },
      ...(status === '204' ? {} : { content: success.content ?? {} }),
    };
  }
  if (http.entityTag && method === 'get') {
    corrected['304'] = {
      description: 'Not modified: If-None-Match matched the current ETag; no body',
      headers: { ...entityTagHeaders, ...fixedHeaders },
    };
  }
  const errorStatuses = new Set([...Object.keys(responses).filter((code) => code !== '200' && code !== '401' && code !== '403'), '500']);
  for (const code of [...errorStatuses].sort()) {
    corrected[code] = {
      description: errorDescriptions[code] ?? responses[code]?.description ?? 'Error',
      ...(Object.keys(fixedHeaders).length > 0 ? { headers: fixedHeaders } : {}),
      content: PROBLEM_CONTENT,
    };
  }
  return corrected;
}

/** SPEC: unknown body fields are rejected on every route, PATCH included. */
function forbidUnknownBodyFields(operation: JsonObject): void {
  const body = operation.requestBody as { content?: Record<string, { schema?: JsonObject }> } | undefined;
  const schema = body?.content?.['application/json']?.schema;
  if (schema && schema.type === 'object') schema.additionalProperties = false;
}
