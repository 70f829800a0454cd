import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LEADERBOARD_PATH, leaderboardFiles } from '../../src/pages/leaderboard-app.ts';

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
  const files = new Map(
    leaderboardFiles().map((file) => {
      if (file.path !== LEADERBOARD_PATH) return [file.path, file];
      const html = file.body.toString().replace('<meta name="lab-api-base" content="">', `<meta name="lab-api-base" content="${apiUrl}">`);
      return [file.path, { ...file, body: Buffer.from(html) }];
    }),
  );
  const server = createServer((req, res) => {
    const file = files.get(new URL(req.url ?? '/', 'http://site').pathname);
    if (!file) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Type': file.contentType }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // localhost, not 127.0.0.1: another origin than the API's, as the browser sees it.
    url: `http://localhost:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
