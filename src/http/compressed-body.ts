import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { chooseEncoding } from './accept-encoding.ts';
import { appendVary } from './vary.ts';
import { writeBody } from './write-body.ts';

/** A body held in each encoding the service offers (docs/spec/DECISIONS.md, "Operations": brotli and gzip). */
export interface CompressedBody {
  identity: Buffer;
  /** Absent for a body served as is (the vendor assets of a build that did not run). */
  br?: Buffer;
  gzip?: Buffer;
}

/** Brotli's best quality: worth it for what is compressed once and sent many times. */
const BROTLI_QUALITY = constants.BROTLI_MAX_QUALITY;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Compresses a body once, off the event loop (zlib's thread pool). */
export async function compressBody(body: string | Buffer, brotliQuality = BROTLI_QUALITY): Promise<Required<CompressedBody>> {
  const identity = Buffer.from(body);
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzipped(identity, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  return { identity, br, gzip: gz };
}

/**
 * Sends a page, asset or document in the encoding the request's
 * Accept-Encoding prefers among ours, with `Vary: Accept-Encoding` whichever
 * it is, so caches keep the encodings apart. HEAD gets the headers only.
 */
export function sendCompressed(
  req: IncomingMessage,
  res: ServerResponse,
  body: CompressedBody,
  headers: { contentType: string; cacheControl?: string | undefined },
): void {
  const compressed = body.br !== undefined && body.gzip !== undefined;
  const encoding = compressed ? chooseEncoding(req.headers['accept-encoding']) : 'identity';
  const bytes = (encoding === 'br' ? body.br : encoding === 'gzip' ? body.gzip : undefined) ?? body.identity;
  res.setHeader('Content-Type', headers.contentType);
  if (headers.cacheControl) res.setHeader('Cache-Control', headers.cacheControl);
  if (compressed) appendVary(res, 'Accept-Encoding');
  if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
  writeBody(res, 200, bytes);
}
