import type { IncomingMessage, ServerResponse } from 'node:http';
import { compressBody, sendCompressed, type CompressedBody } from '../http/compressed-body.ts';
import { setHeadersOn, type ResponseHeaders } from '../http/response-headers.ts';
import { DOCS_PAGE, DOCS_PATH, DOCS_POLICY, DOCS_START_PATH, DOCS_START_SCRIPT } from './docs-page.ts';
import { GRAPHIQL_PAGE, GRAPHIQL_PATH, GRAPHIQL_POLICY, GRAPHIQL_START_PATH, GRAPHIQL_START_SCRIPT } from './graphiql-page.ts';
import { LEADERBOARD_PATH, LEADERBOARD_POLICY, leaderboardFiles } from './leaderboard-app.ts';
import { pageHeaders } from './page-headers.ts';
import { loadVendorAsset, VENDOR_ASSETS } from './vendor-assets.ts';
import { VERSIONING_PAGE, VERSIONING_PATH, VERSIONING_POLICY } from './versioning-page.ts';

const OPENAPI_PATH = '/api/openapi.json';

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
/** Vendor assets change only with a package upgrade; pages may change with a deployment. */
const PAGE_CACHE = 'public, max-age=300';
const ASSET_CACHE = 'public, max-age=86400';

interface Entry {
  body: () => Promise<CompressedBody>;
  contentType: string;
  cacheControl?: string;
  /** A page's own headers (its Content-Security-Policy and the rest), built once at start. */
  headers?: ResponseHeaders;
}

export interface StaticContent {
  /** Whether the path is one of the pages, assets or the document: asked of every GET, so no promise. */
  has(pathname: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void>;
}

/** Keeps the first promise: the work is done once, by whoever asks first. */
function once<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= build());
}

/**
 * The pages, their assets and the OpenAPI document (docs/spec/DECISIONS.md, "Operations"):
 * each compressed once — the pages and the document at start, off the event
 * loop; the vendor assets by the build — and sent in the encoding the client
 * prefers. Answers GET and HEAD for the paths it knows.
 */
export function createStaticContent(openApiJson: Promise<string>): StaticContent {
  const atStart = (body: string | Buffer | Promise<string>) => {
    const compressed = Promise.resolve(body).then((text) => compressBody(text));
    // Nobody may be waiting when it fails; a request that asks later gets the error.
    compressed.catch(() => {});
    return () => compressed;
  };
  const entries = new Map<string, Entry>([
    [OPENAPI_PATH, { body: atStart(openApiJson), contentType: 'application/json' }],
    [DOCS_PATH, { body: atStart(DOCS_PAGE), contentType: HTML, cacheControl: PAGE_CACHE, headers: pageHeaders(DOCS_POLICY) }],
    // A page's start script changes with it, not with its vendor's package.
    [DOCS_START_PATH, { body: atStart(DOCS_START_SCRIPT), contentType: JS, cacheControl: PAGE_CACHE }],
    [GRAPHIQL_PATH, { body: atStart(GRAPHIQL_PAGE), contentType: HTML, cacheControl: PAGE_CACHE, headers: pageHeaders(GRAPHIQL_POLICY) }],
    [GRAPHIQL_START_PATH, { body: atStart(GRAPHIQL_START_SCRIPT), contentType: JS, cacheControl: PAGE_CACHE }],
    [VERSIONING_PATH, { body: atStart(VERSIONING_PAGE), contentType: HTML, cacheControl: 'public, max-age=3600', headers: pageHeaders(VERSIONING_POLICY) }],
    // The page at start; its script, styles and source maps when first asked for.
    ...leaderboardFiles().map((file): [string, Entry] =>
      file.path === LEADERBOARD_PATH
        ? [file.path, { body: atStart(file.body), contentType: file.contentType, cacheControl: file.cacheControl, headers: pageHeaders(LEADERBOARD_POLICY) }]
        : [file.path, { body: once(() => compressBody(file.body)), contentType: file.contentType, cacheControl: file.cacheControl }],
    ),
    ...VENDOR_ASSETS.map((asset): [string, Entry] => [
      asset.path,
      { body: once(() => loadVendorAsset(asset)), contentType: asset.contentType, cacheControl: ASSET_CACHE },
    ]),
  ]);
  return {
    has: (pathname) => entries.has(pathname),
    async serve(req, res, pathname) {
      const entry = entries.get(pathname)!;
      const body = await entry.body();
      if (entry.headers) setHeadersOn(res, entry.headers);
      sendCompressed(req, res, body, entry);
    },
  };
}
