import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitScore } from '../test/support/scores-client.ts';
import { openSse } from '../test/support/sse-reader.ts';
import { serveLeaderboardElsewhere, type StaticSite } from '../test/support/static-site.ts';
import { startTestServer, type TestServer } from '../test/support/test-server.ts';
import { watchCsp, type CspWatch } from './csp-watch.ts';
import { rowsOf, submitThroughForm } from './leaderboard-page.ts';

const SCREENSHOTS = new URL('../.artifacts/screenshots/', import.meta.url);
/** The bound for a score from elsewhere to show on an open page. */
const LIVE_WITHIN_MS = 3000;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startTestServer({ env: { SSE_POLL_MS: '100', RATE_LIMIT_SCORES_PER_MINUTE: '20' } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * A page that records console errors, any request leaving the two origins
 * (nothing may come from a CDN) and what its Content-Security-Policy refuses;
 * `beforeVisit` starts watching anything else before the page loads.
 */
async function openPage(
  url: string,
  origins: string[],
  beforeVisit: (page: Page) => Promise<void> = async () => {},
): Promise<{ page: Page; offsite: string[]; consoleErrors: string[]; csp: CspWatch }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const csp = await watchCsp(page);
  const offsite: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (!origins.some((origin) => request.url().startsWith(origin))) offsite.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await beforeVisit(page);
  await page.goto(url);
  return { page, offsite, consoleErrors, csp };
}

describe('the leaderboard page at /', () => {
  let page: Page;
  let offsite: string[];
  let consoleErrors: string[];
  let csp: CspWatch;
  beforeAll(async () => {
    ({ page, offsite, consoleErrors, csp } = await openPage(`${server.url}/`, [server.url]));
  });
  afterAll(() => page.close());

  it('shows one tab per game and the first board, live', async () => {
    const tabs = page.getByRole('tab');
    await expect(tabs.allTextContents()).resolves.toEqual(['Tower Toppler', 'Marble Maze', 'Stacker', 'Starfield Runner', 'Lab demo']);
    await expect(page.getByRole('tab', { selected: true }).textContent()).resolves.toBe('Tower Toppler');
    await page.locator('#stream-status[data-state="live"]').waitFor();
    await expect(page.locator('#board-title').textContent()).resolves.toBe('Tower Toppler');
    for (const name of ['REST docs', 'GraphiQL', 'Versioning']) {
      await expect(page.getByRole('link', { name }).getAttribute('href')).resolves.toMatch(/^\/(docs|graphiql|versioning)$/);
    }
    await page.screenshot({ path: new URL('leaderboard.png', SCREENSHOTS).pathname });
  });

  it('moves between tabs with the arrow keys, and only the selected tab is in the Tab order', async () => {
    await page.getByRole('tab', { name: 'Tower Toppler' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { selected: true }).textContent()).resolves.toBe('Marble Maze');
    await expect(page.locator('#board-title').textContent()).resolves.toBe('Marble Maze');
    // The stream's first message, which names the board too, has not changed the name.
    await page.locator('#stream-status[data-state="live"]').waitFor();
    await expect(page.locator('#board-title').textContent()).resolves.toBe('Marble Maze');
    await page.keyboard.press('End');
    await expect(page.getByRole('tab', { selected: true }).textContent()).resolves.toBe('Lab demo');
    await expect(page.locator('[role="tab"][tabindex="0"]').count()).resolves.toBe(1);
    await expect(page.locator('#board-panel').getAttribute('aria-labelledby')).resolves.toBe('tab-demo');
    expect(page.url()).toMatch(/#demo$/);
  });

  it('a score submitted through the form appears on the board', async () => {
    await page.getByRole('tab', { name: 'Lab demo' }).click();
    await page.locator('#stream-status[data-state="live"]').waitFor();
    await submitThroughForm(page, 'pgf', '4242');
    await page.getByText(/Stored: PGF is number \d+ on Lab demo\./).waitFor();
    await rowsOf(page, 'PGF').first().waitFor();
    await expect(rowsOf(page, 'PGF').count()).resolves.toBe(1);
  });

  it('a score submitted over REST by someone else appears within 3 s, without reload', async () => {
    await page.locator('#stream-status[data-state="live"]').waitFor();
    await submitScore(server.url, { game: 'demo', initials: 'RST', value: 999_999 });
    await rowsOf(page, 'RST').first().waitFor({ timeout: LIVE_WITHIN_MS });
    // The newest arrival is marked.
    await expect(rowsOf(page, 'RST').first().getAttribute('class')).resolves.toBe('latest');
    await page.screenshot({ path: new URL('leaderboard-live.png', SCREENSHOTS).pathname });
  });

  it('shows the service’s own messages next to the fields it names', async () => {
    await submitThroughForm(page, 'A1', '2000000');
    await page.locator('#score-initials-error', { hasText: 'Three capital letters, A–Z' }).waitFor();
    await page.locator('#score-value-error', { hasText: 'At most 1000000 for Lab demo' }).waitFor();
    await expect(page.getByLabel('Initials', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await page.screenshot({ path: new URL('leaderboard-validation.png', SCREENSHOTS).pathname });
  });

  /** The next `count` submissions reach the service, which stores them, but their answers never reach the page; returns the Idempotency-Keys sent. */
  async function loseAnswers(count: number): Promise<string[]> {
    const keys: string[] = [];
    let toLose = count;
    await page.route('**/api/trpc/scores.submit', async (route) => {
      keys.push(route.request().headers()['idempotency-key'] ?? '');
      if (toLose === 0) return route.continue();
      toLose--;
      await route.fetch();
      await route.abort('failed');
    });
    return keys;
  }

  it('the client retries a submission whose answer was lost with the same Idempotency-Key, and the score is stored once', async () => {
    const keys = await loseAnswers(1);
    await submitThroughForm(page, 'NET', '31337');
    // The typed client sends it again by itself (0.5 s later), with the same key: the stored answer comes back.
    await page.getByText(/Stored: NET is number \d+/).waitFor();
    await page.unroute('**/api/trpc/scores.submit');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    await rowsOf(page, 'NET').first().waitFor();
    await expect(rowsOf(page, 'NET').count()).resolves.toBe(1);
  });

  it('when every retry of the client failed too, submitting again sends the same Idempotency-Key, and the score is stored once', async () => {
    // The first attempt and the client's three retries all lose their answers.
    const keys = await loseAnswers(4);
    await submitThroughForm(page, 'NTW', '31338');
    await page.getByText('The service could not be reached. Submit again to retry').waitFor();
    await page.getByRole('button', { name: 'Submit score' }).click();
    await page.getByText(/Stored: NTW is number \d+/).waitFor();
    await page.unroute('**/api/trpc/scores.submit');
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
    await rowsOf(page, 'NTW').first().waitFor();
    await expect(rowsOf(page, 'NTW').count()).resolves.toBe(1);
  });

  it('says how long to wait after a 429', async () => {
    // The limit is 20 a minute for this client (every attempt counts, the client's own retries too): submit until the service refuses (a new window may start on the way).
    for (let attempt = 0; attempt < 45; attempt++) {
      await submitThroughForm(page, 'LIM', String(attempt));
      const message = page.locator('#form-message');
      await expect.poll(() => message.textContent()).toMatch(/Stored|Too many/);
      if ((await message.textContent())?.startsWith('Too many')) break;
    }
    await expect(page.locator('#form-message').textContent()).resolves.toMatch(/^Too many scores from you just now\. Try again in \d+ seconds?\.$/);
    await page.screenshot({ path: new URL('leaderboard-429.png', SCREENSHOTS).pathname });
  });

  it('logged no errors but the 429 and loaded nothing from elsewhere', () => {
    expect(consoleErrors.filter((text) => !/429|ERR_FAILED|status of 400/.test(text)).join('\n')).toBe('');
    expect(offsite).toEqual([]);
  });

  it('its Content-Security-Policy refused nothing the page did, and does refuse an injected inline script', async () => {
    // Everything above ran under the policy: tabs, the live stream, the form, the retry, the 429.
    expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
  });
});

describe('the same page served from another origin', () => {
  // An API of its own, so that the limits used up above do not count here; its streams end after 2 s.
  let api: TestServer;
  let site: StaticSite;
  beforeAll(async () => {
    api = await startTestServer({ env: { SSE_POLL_MS: '100', SSE_STREAM_MS: '2000' } });
    site = await serveLeaderboardElsewhere(api.url);
  });
  afterAll(async () => {
    await site?.stop();
    await api?.stop();
  });

  it('reads the boards, follows them live and submits through CORS', async () => {
    // The page follows the board through the typed client's subscription, not the REST stream.
    const streamRequests: Promise<Record<string, string>>[] = [];
    const restStreamRequests: string[] = [];
    // The ids of the boards the page received, as the browser's DevTools see each event-stream message.
    const boardIds: number[] = [];
    const { page, offsite, consoleErrors } = await openPage(`${site.url}/#stacker`, [site.url, api.url], async (page) => {
      page.on('request', (request) => {
        if (request.url().startsWith(`${api.url}/api/trpc/scores.live?`)) streamRequests.push(request.allHeaders());
        if (request.url().startsWith(`${api.url}/api/scores/stream`)) restStreamRequests.push(request.url());
      });
      const devtools = await page.context().newCDPSession(page);
      devtools.on('Network.eventSourceMessageReceived', (message) => {
        if (message.eventName === 'message') boardIds.push(Number(message.eventId));
      });
      await devtools.send('Network.enable');
    });
    try {
      expect(new URL(site.url).origin).not.toBe(new URL(api.url).origin);
      await page.locator('#stream-status[data-state="live"]').waitFor();
      await expect(page.locator('#board-title').textContent()).resolves.toBe('Stacker');
      await expect(page.getByRole('link', { name: 'REST docs' }).getAttribute('href')).resolves.toBe(`${api.url}/docs`);

      await submitScore(api.url, { game: 'stacker', initials: 'FAR', value: 321 });
      await rowsOf(page, 'FAR').first().waitFor({ timeout: LIVE_WITHIN_MS });

      // A POST with Idempotency-Key and JSON: preflighted, then answered and read.
      await submitThroughForm(page, 'xor', '123');
      await page.getByText(/Stored: XOR is number \d+ on Stacker\./).waitFor();
      await rowsOf(page, 'XOR').first().waitFor({ timeout: LIVE_WITHIN_MS });

      // The stream ended: EventSource comes back with Last-Event-ID (a preflighted header across origins) and only newer boards follow.
      const lastEventIds = async () => (await Promise.all(streamRequests)).map((headers) => headers['last-event-id']).filter((id) => id !== undefined);
      await expect.poll(lastEventIds, { timeout: 10_000 }).not.toEqual([]);
      expect(Number((await lastEventIds())[0])).toBeGreaterThan(0);
      await submitScore(api.url, { game: 'stacker', initials: 'RES', value: 77 });
      await rowsOf(page, 'RES').first().waitFor({ timeout: LIVE_WITHIN_MS });
      // Across the reconnections no board was repeated: each came after the last one seen.
      expect(boardIds.length).toBeGreaterThanOrEqual(4);
      expect(boardIds).toEqual([...new Set(boardIds)].sort((a, b) => a - b));

      // Errors and their messages cross origins too.
      await submitThroughForm(page, 'XOR', '501');
      await page.locator('#score-value-error', { hasText: 'At most 500 for Stacker' }).waitFor();
      expect(consoleErrors.filter((text) => /CORS|Access-Control/i.test(text))).toEqual([]);
      expect(restStreamRequests).toEqual([]);
      expect(offsite).toEqual([]);
      await page.screenshot({ path: new URL('leaderboard-other-origin.png', SCREENSHOTS).pathname });
    } finally {
      await page.close();
    }
  });
});

describe('the page when the service refuses its subscription', () => {
  // One stream per client: a stream this test holds (from the same address) leaves the page none.
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({ env: { SSE_POLL_MS: '100', SSE_MAX_STREAMS_PER_CLIENT: '1' } });
  });
  afterAll(() => api?.stop());

  it('says it is reconnecting, and follows the board once a stream is free again', async () => {
    const held = await openSse(`${api.url}/api/scores/stream?game=runner`);
    await held.nextMatching((frame) => frame.event === 'board');
    const { page } = await openPage(`${api.url}/#runner`, [api.url]);
    try {
      await page.locator('#stream-status[data-state="reconnecting"]').waitFor();
      await expect(page.locator('#board-entries tr').count()).resolves.toBe(0);
      held.close();
      // The page opens a fresh subscription 5 s after the refusal.
      await page.locator('#stream-status[data-state="live"]').waitFor({ timeout: 10_000 });
      await submitScore(api.url, { game: 'runner', initials: 'BAK', value: 5 });
      await rowsOf(page, 'BAK').first().waitFor({ timeout: LIVE_WITHIN_MS });
    } finally {
      held.close();
      await page.close();
    }
  });
});
