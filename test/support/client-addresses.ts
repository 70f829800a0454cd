/** One second into a minute (and into a 10-second window, and an hour): limit windows are aligned, so a test's requests fall in one. */
export const ONE_SECOND_INTO_A_MINUTE = Date.UTC(2026, 10, 23, 12, 0, 1);

/**
 * A fresh client address on each call (`<prefix>.1`, `<prefix>.2`, …, then
 * `proxies` as the rest of the X-Forwarded-For chain), so that on a server
 * with TRUST_PROXY no counter leaks from one test into another.
 */
export function clientAddresses(prefix: string, proxies = ''): () => Record<string, string> {
  let count = 0;
  return () => ({ 'X-Forwarded-For': `${prefix}.${++count}${proxies}` });
}
