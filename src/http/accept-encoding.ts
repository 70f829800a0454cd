/** The encodings the service offers, preferred first (docs/spec/DECISIONS.md, "Operations": brotli over gzip). */
export type Encoding = 'br' | 'gzip' | 'identity';
const OFFERED: readonly Encoding[] = ['br', 'gzip', 'identity'];

/**
 * The encoding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the
 * highest q-value wins, our preference breaks ties, `*` stands for any
 * encoding not named, `q=0` refuses. Identity is acceptable unless refused.
 * With no header at all, identity.
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  const weights = new Map<string, number>();
  for (const entry of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = entry.split(';').map((part) => part.trim());
    if (!name) continue;
    const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
    const weight = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
    weights.set(name.toLowerCase(), Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0);
  }
  const wildcard = weights.get('*');
  const weightOf = (encoding: Encoding) => weights.get(encoding) ?? wildcard ?? (encoding === 'identity' ? 1 : 0);
  let best: Encoding = 'identity';
  let bestWeight = 0;
  for (const encoding of OFFERED) {
    const weight = weightOf(encoding);
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}
