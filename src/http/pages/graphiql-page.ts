import { GRAPHIQL_ASSETS, GRAPHIQL_WORKERS } from './vendor-assets.ts';

export const GRAPHIQL_PATH = '/graphiql';

const options = {
  endpoint: '/api/graphql',
  method: 'POST',
  useGETForQueries: false,
  title: 'Lab API GraphiQL',
  defaultQuery: '{\n  tasks {\n    id\n    title\n  }\n}\n',
};

/**
 * GraphiQL as Yoga renders it, but loading its bundle, styles and editor
 * workers as cacheable, compressed files (vendor assets) instead of inlining
 * 9 MB into every load. Every request goes by POST to /api/graphql.
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
  <script>
    const workers = ${JSON.stringify(Object.fromEntries(GRAPHIQL_WORKERS.map((label) => [label, `${GRAPHIQL_ASSETS}${label}.worker.js`])))};
    self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (moduleId, label) => workers[label] };
  </script>
  <script src="${GRAPHIQL_ASSETS}graphiql.js"></script>
  <script>
    YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${JSON.stringify(options)});
  </script>
</body>
</html>
`;
