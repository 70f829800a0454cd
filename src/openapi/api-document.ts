import type { AnyTRPCRouter } from '@trpc/server';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { buildOpenApiDocument } from './openapi-document.ts';
import { SCORE_STREAM_PATH, scoreStreamOpenApi } from '../streams/score-stream-openapi.ts';

/** The service's whole OpenAPI document: the router's routes (the router the handler serves) and the raw ones. */
export function buildApiDocument(router: AnyTRPCRouter, baseUrl: string): OpenAPIObject {
  return buildOpenApiDocument(router, baseUrl, { [SCORE_STREAM_PATH]: scoreStreamOpenApi });
}
