import { mkdirSync } from 'node:fs';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAMES, type GameId } from '../src/schemas/games.ts';
import { submitScore } from '../test/support/scores-client.ts';
import { startTestServer, type TestServer } from '../test/support/test-server.ts';
import { watchCsp, type CspWatch } from './csp-watch.ts';
import { horizontalOverflow } from './horizontal-overflow.ts';
import { rowsOf, submitThroughForm } from './leaderboard-page.ts';

const SCREENSHOTS = new URL('../.artifacts/screenshots/', import.meta.url);
/** The bound for a score from elsewhere to show on an open page. */
const LIVE_WITHIN_MS = 3000;
const BOARD_LENGTH = 10;

/**
 * The sizes issue 31 names, and the narrowest common Android phone, each on
 * a board of its own whose values are the widest its game has: the longest
 * tab name and the biggest counts on the phones, times on the tablet. Phone and tablet are emulated as touch devices
 * that honour the page's viewport meta.
 */
const VIEWPORTS: { name: string; width: number; height: number; mobile: boolean; game: GameId }[] = [
  { name: 'phone', width: 390, height: 844, mobile: true, game: 'runner' },
  { name: 'small phone', width: 360, height: 740, mobile: true, game: 'demo' },
  { name: 'tablet', width: 768, height: 1024, mobile: true, game: 'marble' },
  { name: 'desktop', width: 1280, height: 800, mobile: false, game: 'toppler' },
];

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startTestServer({ env: { SSE_POLL_MS: '100' } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The browser's own line for an answer the test provoked on purpose: a score the service refused with 400. */
const isProvokedRefusal = (message: ConsoleMessage) =>
  /status of 400/.test(message.text()) && message.location().url.includes('/api/trpc/scores.submit');

describe.each(VIEWPORTS)('the leaderboard page on a $name, $width × $height', ({ name, width, height, mobile, game }) => {
  const { name: gameName, max, better } = GAMES[game];
  /** A value that beats the whole board and is still as wide as its values. */
  const best = better === 'higher' ? max : max - BOARD_LENGTH;
  const screenshot = name.replaceAll(' ', '-');
  let page: Page;
  let csp: CspWatch;
  const consoleErrors: string[] = [];
  let provokedRefusals = 0;

  beforeAll(async () => {
    // A full board of the widest values, there before the page opens.
    for (let place = 0; place < BOARD_LENGTH; place++) {
      await submitScore(server.url, { game, initials: `W${String.fromCharCode(65 + place)}${String.fromCharCode(90 - place)}`, value: max - place });
    }
    page = await browser.newPage({ viewport: { width, height }, isMobile: mobile, hasTouch: mobile, locale: 'en-US' });
    csp = await watchCsp(page);
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      if (isProvokedRefusal(message)) provokedRefusals++;
      else consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    await page.goto(`${server.url}/#${game}`);
  });
  afterAll(() => page?.close());

  it('shows the full board live, with nothing past the right edge or clipped', async () => {
    await page.locator('#stream-status[data-state="live"]').waitFor();
    await expect(page.locator('#board-title').textContent()).resolves.toBe(gameName);
    await expect.poll(() => page.locator('#board-entries tr').count()).toBe(BOARD_LENGTH);
    await expect(page.getByRole('tab').count()).resolves.toBe(Object.keys(GAMES).length);
    expect(await horizontalOverflow(page)).toEqual([]);
    await page.screenshot({ path: new URL(`leaderboard-${screenshot}.png`, SCREENSHOTS).pathname, fullPage: true });
  });

  it('shows the service’s messages next to the fields, still within the width', async () => {
    await submitThroughForm(page, 'A1', String(max + 1));
    await page.locator('#score-initials-error', { hasText: 'Three capital letters, A–Z' }).waitFor();
    await page.locator('#score-value-error', { hasText: `At most ${max} for ${gameName}` }).waitFor();
    expect(await horizontalOverflow(page)).toEqual([]);
    await page.screenshot({ path: new URL(`leaderboard-${screenshot}-validation.png`, SCREENSHOTS).pathname, fullPage: true });
  });

  it('a score submitted through the form, and one from elsewhere, show on the board', async () => {
    await submitThroughForm(page, 'top', String(best));
    await page.getByText(new RegExp(`Stored: TOP is number \\d+ on ${gameName}\\.`)).waitFor();
    await rowsOf(page, 'TOP').first().waitFor();
    await submitScore(server.url, { game, initials: 'FAR', value: best });
    await rowsOf(page, 'FAR').first().waitFor({ timeout: LIVE_WITHIN_MS });
    await expect(rowsOf(page, 'FAR').first().getAttribute('class')).resolves.toBe('latest');
    expect(await horizontalOverflow(page)).toEqual([]);
  });

  it('logged no error and its Content-Security-Policy refused nothing', async () => {
    expect(consoleErrors).toEqual([]);
    // The one refusal asked for above, logged by the browser as the network answer it was.
    expect(provokedRefusals).toBe(1);
    expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
  });
});
