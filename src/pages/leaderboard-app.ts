import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PagePolicy } from './page-headers.ts';

/** The landing page: the live leaderboards (web/, bundled by the build). */
export const LEADERBOARD_PATH = '/';
const LEADERBOARD_ASSETS = '/app/assets/';

/** What / loads (web/index.html), each from this origin. */
export const LEADERBOARD_POLICY: PagePolicy = {
  // The bundled module script.
  'script-src': ["'self'"],
  // The bundled styles; the script sets no inline style.
  'style-src': ["'self'"],
  // The page's icon, an SVG written into web/index.html as a data: URL.
  'img-src': ['data:'],
  // tRPC calls, and the scores.live subscription (EventSource).
  'connect-src': ["'self'"],
};

/** Where `npm run build` writes the page, found from src/ and dist/ alike. */
const APP_FOLDER = fileURLToPath(new URL('../../dist/public/app/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

export interface LeaderboardFile {
  path: string;
  body: Buffer;
  contentType: string;
  cacheControl: string;
}

/** Before any build (`npm run dev` on a checkout that never built) the page says how to get it. */
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lab leaderboards</title></head>
<body><p>The leaderboard page is built by <code>npm run build</code>. Meanwhile: <a href="/docs">/docs</a>, <a href="/graphiql">/graphiql</a>.</p></body></html>
`;

/**
 * The page and its assets as files to serve: the HTML is revalidated on
 * every visit, the content-hashed script and styles are kept for a year.
 */
export function leaderboardFiles(folder = APP_FOLDER): LeaderboardFile[] {
  const html = (body: Buffer): LeaderboardFile => ({ path: LEADERBOARD_PATH, body, contentType: CONTENT_TYPES['.html']!, cacheControl: 'no-cache' });
  if (!existsSync(join(folder, 'index.html'))) return [html(Buffer.from(NOT_BUILT))];
  const assets = readdirSync(join(folder, 'assets')).map((file) => ({
    path: `${LEADERBOARD_ASSETS}${file}`,
    body: readFileSync(join(folder, 'assets', file)),
    contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    cacheControl: 'public, max-age=31536000, immutable',
  }));
  return [html(readFileSync(join(folder, 'index.html'))), ...assets];
}
