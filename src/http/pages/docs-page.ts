import { DOCS_ASSETS } from './vendor-assets.ts';

export const DOCS_PATH = '/docs';

/** The API reference, rendered by Swagger UI from /api/openapi.json; its files are vendor assets. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Lab API reference</title>
  <link rel="icon" href="${DOCS_ASSETS}favicon-32x32.png">
  <link rel="stylesheet" href="${DOCS_ASSETS}swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_ASSETS}swagger-ui-bundle.js"></script>
  <script src="${DOCS_ASSETS}swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/api/openapi.json',
      dom_id: '#swagger-ui',
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout',
      // The online validator badge would call out to the internet.
      validatorUrl: null,
    });
  </script>
</body>
</html>
`;
