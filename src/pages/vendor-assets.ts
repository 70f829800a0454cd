import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compressBody, type CompressedBody } from '../http/compressed-body.ts';

const require = createRequire(import.meta.url);
const swaggerUiFolder = dirname(require.resolve('swagger-ui-dist/package.json'));
const graphqlSseFolder = dirname(require.resolve('graphql-sse/package.json'));
const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

/**
 * Where `npm run build` writes the vendor assets, each with its .br and .gz
 * forms: dist/public, found from src/ and dist/ alike (both sit at the same
 * depth below the package root).
 */
export const PUBLIC_FOLDER = fileURLToPath(new URL('../../dist/public/', import.meta.url));

/** Brotli at its best takes over 30 s on GraphiQL's 9 MB bundle; 9 is within 10 % of its size in a tenth of the time. */
const BUILD_BROTLI_QUALITY = 9;

export interface VendorAsset {
  /** Where it is served. */
  path: string;
  /** Its file name in the public folder. */
  file: string;
  contentType: string;
  /** The package and version it comes from: the build skips an asset it already wrote from the same one. */
  origin: string;
  source(): Promise<Buffer>;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** GraphiQL as Yoga's renderer ships it (one module of strings), split into cacheable files instead of one inlined 9 MB page. */
const graphiql = () => import('@graphql-yoga/render-graphiql/graphiql');
const dataUrlBytes = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');

export const GRAPHIQL_ASSETS = '/graphiql/assets/';
export const DOCS_ASSETS = '/docs/assets/';
/** graphql-sse's browser build (its `graphqlSse` global): GraphiQL's subscriptions (graphiql-fetcher.ts). */
export const GRAPHQL_SSE_ASSET = `${GRAPHIQL_ASSETS}graphql-sse.js`;
/** Monaco asks for its workers by these labels. */
export const GRAPHIQL_WORKERS = ['editorWorkerService', 'json', 'graphql'] as const;

const swaggerUi = (file: string, contentType: string): VendorAsset => ({
  path: `${DOCS_ASSETS}${file}`,
  file: `docs/${file}`,
  contentType,
  origin: `swagger-ui-dist@${versionOf('swagger-ui-dist')}`,
  source: async () => readFileSync(join(swaggerUiFolder, file)),
});

const fromGraphiql = (file: string, contentType: string, pick: (module: Awaited<ReturnType<typeof graphiql>>) => Buffer): VendorAsset => ({
  path: `${GRAPHIQL_ASSETS}${file}`,
  file: `graphiql/${file}`,
  contentType,
  origin: `@graphql-yoga/render-graphiql@${versionOf('@graphql-yoga/render-graphiql')}`,
  source: async () => pick(await graphiql()),
});

/** Every file the /docs and /graphiql pages load, served from the installed packages: no CDN. */
export const VENDOR_ASSETS: readonly VendorAsset[] = [
  swaggerUi('swagger-ui.css', CSS),
  swaggerUi('swagger-ui-bundle.js', JS),
  swaggerUi('swagger-ui-standalone-preset.js', JS),
  swaggerUi('favicon-32x32.png', 'image/png'),
  fromGraphiql('graphiql.css', CSS, (module) => Buffer.from(module.css)),
  fromGraphiql('graphiql.js', JS, (module) => Buffer.from(module.js)),
  fromGraphiql('favicon.ico', 'image/x-icon', (module) => dataUrlBytes(module.favicon)),
  fromGraphiql('editorWorkerService.worker.js', JS, (module) => Buffer.from(module.editorWorkerService)),
  fromGraphiql('json.worker.js', JS, (module) => Buffer.from(module.jsonWorker)),
  fromGraphiql('graphql.worker.js', JS, (module) => Buffer.from(module.graphqlWorker)),
  {
    path: GRAPHQL_SSE_ASSET,
    file: 'graphiql/graphql-sse.js',
    contentType: JS,
    origin: `graphql-sse@${versionOf('graphql-sse')}`,
    source: async () => readFileSync(join(graphqlSseFolder, 'umd', 'graphql-sse.min.js')),
  },
];

/**
 * An asset's three forms, read from the public folder once and kept. Before
 * any build (`npm run dev` on a fresh clone) it is read from its package and
 * sent uncompressed.
 */
export async function loadVendorAsset(asset: VendorAsset): Promise<CompressedBody> {
  const file = join(PUBLIC_FOLDER, asset.file);
  if (!existsSync(`${file}.br`)) return { identity: await asset.source() };
  return { identity: readFileSync(file), br: readFileSync(`${file}.br`), gzip: readFileSync(`${file}.gz`) };
}

/** The build's step: writes each asset and its compressed forms, skipping those already written from the same package version. */
export async function writeVendorAssets(folder = PUBLIC_FOLDER): Promise<void> {
  const manifestFile = join(folder, 'manifest.json');
  const written = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>) : {};
  await Promise.all(
    VENDOR_ASSETS.map(async (asset) => {
      const file = join(folder, asset.file);
      if (written[asset.file] === asset.origin && existsSync(`${file}.gz`)) return;
      const body = await compressBody(await asset.source(), BUILD_BROTLI_QUALITY);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, body.identity);
      writeFileSync(`${file}.br`, body.br);
      writeFileSync(`${file}.gz`, body.gzip);
      written[asset.file] = asset.origin;
    }),
  );
  writeFileSync(manifestFile, `${JSON.stringify(written, null, 2)}\n`);
}
