import { GRAPHIQL_FETCHER_SCRIPT } from './graphiql-fetcher.ts';
import type { PagePolicy } from './page-headers.ts';
import { GRAPHIQL_ASSETS, GRAPHIQL_WORKERS, GRAPHQL_SSE_ASSET } from './vendor-assets.ts';

export const GRAPHIQL_PATH = '/graphiql';
/** Starts GraphiQL: a file of ours, as the page's policy allows no inline script. */
export const GRAPHIQL_START_PATH = `${GRAPHIQL_ASSETS}start.js`;

/** Where GraphiQL's fetcher sends every operation (graphiql-fetcher.ts): queries and mutations by POST, subscriptions as GraphQL over SSE. */
const GRAPHQL_ENDPOINT = '/api/graphql';

const options = {
  title: 'Lab API GraphiQL',
  defaultQuery: '{\n  tasks {\n    id\n    title\n  }\n}\n',
};

/**
 * GraphiQL as Yoga renders it, but loading its bundle, styles and editor
 * workers as cacheable, compressed files (vendor assets) instead of inlining
 * 9 MB into every load; with graphql-sse's client for subscriptions, so that
 * GraphiQL follows a stream the server ends (graphiql-fetcher.ts).
 */
export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${options.title}</title>
  <link rel="icon" href="${GRAPHIQL_ASSETS}favicon.ico">
  <link rel="stylesheet" href="${GRAPHIQL_ASSETS}graphiql.css">
</head>
<body id="body" class="no-focus-outline">
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script src="${GRAPHIQL_ASSETS}graphiql.js"></script>
  <script src="${GRAPHQL_SSE_ASSET}"></script>
  <script src="${GRAPHIQL_START_PATH}"></script>
</body>
</html>
`;

/**
 * Monaco looks for MonacoEnvironment when it starts an editor worker, which
 * is when GraphiQL renders: set here, after the bundle and before the render.
 */
export const GRAPHIQL_START_SCRIPT = `const workers = ${JSON.stringify(Object.fromEntries(GRAPHIQL_WORKERS.map((label) => [label, `${GRAPHIQL_ASSETS}${label}.worker.js`])))};
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };
${GRAPHIQL_FETCHER_SCRIPT}
YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), { ...${JSON.stringify(options)}, fetcher: graphiqlFetcher(${JSON.stringify(GRAPHQL_ENDPOINT)}) });
`;

/** What /graphiql loads, each from this origin. */
export const GRAPHIQL_POLICY: PagePolicy = {
  // The bundle, graphql-sse's client and our start script.
  'script-src': ["'self'"],
  // graphiql.css; and Monaco and GraphiQL write <style> elements and style
  // attributes as they render (editor lines, codicons, scroll locks), whose
  // text changes with the content, so no hash can name them.
  'style-src': ["'self'", "'unsafe-inline'"],
  // The favicon; and Monaco's underlines of errors and warnings in the editor, data: SVGs in the <style> it writes.
  'img-src': ["'self'", 'data:'],
  // Its fonts (Monaco's icon font among them) are data: URLs inside graphiql.css.
  'font-src': ['data:'],
  // POST /api/graphql: operations, and subscriptions as event streams.
  'connect-src': ["'self'"],
  // Monaco's editor workers, started from our files (vendor assets), never from blobs.
  'worker-src': ["'self'"],
};
