import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { once, sendStatic } from './static-page.ts';

// The package's main module loads the whole 1.7 MB bundle; its folder is all we need.
const swaggerUiFolder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export const DOCS_PATH = '/docs';
export const DOCS_ASSETS = '/docs/assets/';

/** The Swagger UI files the page loads, served from the installed package: no CDN. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
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

const assetFiles = new Map<string, () => Buffer>(
  Object.keys(assets).map((name) => [name, once(() => readFileSync(join(swaggerUiFolder, name)))]),
);

/** GET /docs: the API reference, rendered by Swagger UI from /api/openapi.json. */
export function serveDocsPage(res: ServerResponse): void {
  sendStatic(res, page, 'text/html; charset=utf-8', 300);
}

/** GET /docs/assets/<file>: only the files above; anything else is not found. */
export function serveDocsAsset(res: ServerResponse, name: string): boolean {
  const file = assetFiles.get(name);
  if (!file) return false;
  sendStatic(res, file(), assets[name]!, 86400);
  return true;
}
