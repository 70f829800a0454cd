import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitScore } from '../test/support/scores-client.ts';
import { startTestServer, type TestServer } from '../test/support/test-server.ts';
import { watchCsp, type CspWatch } from './csp-watch.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** docs/spec/DECISIONS.md, "Live updates on every transport": the subscription a GraphiQL user runs. */
const SUBSCRIPTION = 'subscription { leaderboard(game: demo, limit: 3) { game entries { initials value } } }';
/** issue 31: a follower sees a score another client submitted within 2 s. */
const DELIVERY_MS = 2_000;

let server: TestServer;
let browser: Browser;
let page: Page;
let csp: CspWatch;
const consoleErrors: string[] = [];
const graphqlRequests: { method: string; accept: string | undefined; body: string | null }[] = [];

beforeAll(async () => {
  server = await startTestServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  csp = await watchCsp(page);
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
  page.on('request', (request: Request) => {
    if (new URL(request.url()).pathname === '/api/graphql') {
      graphqlRequests.push({ method: request.method(), accept: request.headers()['accept'], body: request.postData() });
    }
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Three random capital letters, told apart from every other score on the board by the values they come with. */
const randomInitials = () => Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');

/** The text GraphiQL's result pane shows (Monaco draws it with non-breaking spaces). */
const resultText = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');

describe('GraphiQL follows a board over GraphQL over SSE', () => {
  it('runs Subscription.leaderboard, shows the board, and shows a score another client submits within 2 s', async () => {
    // The best two scores of the demo board: this test's own, whatever else the database holds.
    const first = randomInitials();
    await submitScore(server.url, { game: 'demo', initials: first, value: 999_998 });

    // GraphiQL takes its first query from the page's address (as it writes each edit there).
    await page.goto(`${server.url}/graphiql?query=${encodeURIComponent(SUBSCRIPTION)}`);
    await page.locator('.graphiql-execute-button').waitFor();
    const editorText = async () => (await page.locator('.graphiql-query-editor').innerText()).replace(/\s+/g, ' ');
    await expect.poll(editorText).toContain('subscription { leaderboard(game: demo, limit: 3)');
    await page.locator('.graphiql-execute-button').click();

    // The board at once: this test's score leads it.
    await expect.poll(resultText, { timeout: 10_000 }).toMatch(new RegExp(`"initials": "${first}",\\s*"value": 999998`));
    expect(await resultText()).toContain('"game": "demo"');

    // Another client submits a better score: the open subscription shows it within 2 s.
    const second = randomInitials();
    const submitted = Date.now();
    await submitScore(server.url, { game: 'demo', initials: second, value: 999_999 });
    await expect.poll(resultText, { timeout: DELIVERY_MS - (Date.now() - submitted), interval: 50 }).toMatch(
      new RegExp(`"initials": "${second}",\\s*"value": 999999[^]*"initials": "${first}"`),
    );

    // It went by GraphQL over SSE, by POST, as the endpoint takes it (docs/spec/DECISIONS.md).
    const subscriptions = graphqlRequests.filter((request) => request.body?.includes('leaderboard'));
    expect(subscriptions).toEqual([expect.objectContaining({ method: 'POST', accept: 'text/event-stream' })]);

    // Stopping it ends the subscription, in the page and on the server.
    expect(server.app.openStreams.count).toBe(1);
    await expect(page.locator('.graphiql-execute-button').getAttribute('aria-label')).resolves.toMatch(/^Stop/);
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(() => page.locator('.graphiql-execute-button').getAttribute('aria-label')).toMatch(/^Execute/);
    await expect.poll(() => server.app.openStreams.count, { timeout: 5_000, interval: 20 }).toBe(0);
  });

  it('underlines a misspelt field as the user types it, and the page\'s policy lets the editor draw the underline', async () => {
    await page.locator('.graphiql-query-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText('subscription { leaderbord(game: demo) { game } }');
    await page.locator('.graphiql-query-editor .squiggly-error').first().waitFor();
    // Monaco draws the underline as a data: image: refused, the user would see no mark.
    expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
  });

  it('logged no console error and its Content-Security-Policy refused nothing', async () => {
    expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
    // The probe's own refusal is the one error line the console may hold.
    expect(consoleErrors.filter((line) => !/^Executing inline script violates/.test(line))).toEqual([]);
  });
});
