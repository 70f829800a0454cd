import type { OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from '../routers/app-router.ts';
import { buildOpenApiDocument } from './openapi-document.ts';
import { SCORE_STREAM_PATH, scoreStreamOpenApi } from './sse/score-stream-openapi.ts';

/** The service's whole OpenAPI document: the router's routes and the raw ones. */
export function buildApiDocument(baseUrl: string): OpenAPIObject {
  return buildOpenApiDocument(appRouter, baseUrl, { [SCORE_STREAM_PATH]: scoreStreamOpenApi });
}
