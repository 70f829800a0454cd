import type { ServerResponse } from 'node:http';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { once, sendStatic } from './static-page.ts';

export const GRAPHIQL_PATH = '/graphiql';

/**
 * GraphiQL with its whole bundle inlined (Yoga's renderer; no CDN), sending
 * every request by POST to /api/graphql.
 */
const page = once(() =>
  renderGraphiQL({
    endpoint: '/api/graphql',
    method: 'POST',
    useGETForQueries: false,
    title: 'Lab API GraphiQL',
    defaultQuery: '{\n  tasks {\n    id\n    title\n  }\n}\n',
  }),
);

export function serveGraphiQLPage(res: ServerResponse): void {
  sendStatic(res, page(), 'text/html; charset=utf-8', 300);
}
