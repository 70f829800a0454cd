import { request, type JsonResponse } from './http.ts';

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
}

/** POSTs a GraphQL request as JSON to /api/graphql. */
export function graphql(
  url: string,
  body: Record<string, unknown> | string,
  headers: Record<string, string> = {},
): Promise<JsonResponse<GraphQLBody>> {
  return request<GraphQLBody>(`${url}/api/graphql`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export const GRAPHQL_CONTENT_TYPE = 'application/graphql-response+json; charset=utf-8';
