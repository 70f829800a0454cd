import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const APP_FOLDER = fileURLToPath(new URL('../../dist/public/app/', import.meta.url));
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

export interface StaticSite {
  url: string;
  stop(): Promise<void>;
}

/**
 * The built leaderboard page served from another origin, as a game's own
 * site or a Vite dev server would: the same files, its lab-api-base meta
 * pointing at the API.
 */
export async function serveLeaderboardElsewhere(apiUrl: string): Promise<StaticSite> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/') {
      const html = readFileSync(join(APP_FOLDER, 'index.html'), 'utf8').replace('<meta name="lab-api-base" content="">', `<meta name="lab-api-base" content="${apiUrl}">`);
      res.writeHead(200, { 'Content-Type': TYPES['.html'] }).end(html);
      return;
    }
    const file = normalize(path.replace(/^\/app\//, '/'));
    if (!path.startsWith('/app/assets/') || file.includes('..')) {
      res.writeHead(404).end();
      return;
    }
    try {
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(join(APP_FOLDER, file)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // localhost, not 127.0.0.1: another origin than the API's, as the browser sees it.
    url: `http://localhost:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
