import { hashSource, type PagePolicy } from './page-headers.ts';
import { DOCS_ASSETS } from './vendor-assets.ts';

export const DOCS_PATH = '/docs';
/** Starts Swagger UI: a file of ours, as the page's policy allows no inline script. */
export const DOCS_START_PATH = `${DOCS_ASSETS}start.js`;

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
  <script src="${DOCS_START_PATH}"></script>
</body>
</html>
`;

export const DOCS_START_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // The online validator badge would call out to the internet.
  validatorUrl: null,
});
`;

/**
 * The one <style> Swagger UI writes into the page, inside the logo of its
 * top bar (swagger-ui-standalone-preset.js): allowed by its hash alone.
 * test/security-headers.test.ts reads the installed preset and fails when an
 * upgrade changes it.
 */
const SWAGGER_LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';

/** What /docs loads, each from this origin. */
export const DOCS_POLICY: PagePolicy = {
  // Swagger UI's bundle, its preset and our start script.
  'script-src': ["'self'"],
  // swagger-ui.css, and the logo's inline <style>.
  'style-src': ["'self'", hashSource(SWAGGER_LOGO_STYLE)],
  // The favicon; swagger-ui.css and the bundle draw their icons as data: SVGs.
  'img-src': ["'self'", 'data:'],
  // /api/openapi.json, and "Try it out".
  'connect-src': ["'self'"],
};
