import type { Browser, Page, Request } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitScore } from '../test/support/scores-client.ts';
import { startTestServer, type TestServer } from '../test/support/test-server.ts';
import { watchCsp, type CspWatch } from './csp-watch.ts';


/** docs/spec/DECISIONS.md, "Live updates on every transport": the subscription a GraphiQL user runs. */
const SUBSCRIPTION = 'subscription { leaderboard(game: demo, limit: 3) { game entries { initials value } } }';
/** issue 31: a follower sees a score another client submitted within 2 s. */
const DELIVERY_MS = 2_000;
/** How long the resumption case's server keeps a stream open (SSE_STREAM_MS) before it ends it. */
const BRIEF_STREAM_MS = 1_500;

let server: TestServer;
let browser: Browser;
let page: Page;
let csp: CspWatch;
const consoleErrors: string[] = [];
const graphqlRequests: { method: string; accept: string | undefined; body: string | null }[] = [];

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
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

  it('shows at once the errors of a subscription the server refuses (a bad credential), without asking again', async () => {
    const headersEditor = page.locator('section.graphiql-editor-tool[aria-label="Headers"] .graphiql-editor:not(.hidden) .view-lines');
    const typeInto = async (editor: ReturnType<Page['locator']>, text: string) => {
      await editor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(text);
    };
    await typeInto(page.locator('.graphiql-query-editor .view-lines'), SUBSCRIPTION);
    await page.locator('.graphiql-editor-tools button[data-name="headers"]').click();
    await typeInto(headersEditor, '{ "Authorization": "Bearer not-a-token" }');
    const before = graphqlRequests.length;
    const consoleBefore = consoleErrors.length;

    await page.locator('.graphiql-execute-button').click();
    // A 401 would be the same however often asked: the server's own errors, in the time a query's take.
    await expect.poll(resultText, { timeout: DELIVERY_MS }).toContain('"message": "Invalid or expired token"');
    await expect.poll(() => page.locator('.graphiql-execute-button').getAttribute('aria-label')).toMatch(/^Execute/);
    expect(graphqlRequests.slice(before)).toEqual([expect.objectContaining({ method: 'POST', accept: 'text/event-stream' })]);
    expect(server.app.openStreams.count).toBe(0);
    // Chromium reports every 4xx answer in the console: this one was asked for, and is the only line it added.
    await expect.poll(() => consoleErrors.length).toBe(consoleBefore + 1);
    expect(consoleErrors.splice(consoleBefore)).toEqual([expect.stringMatching(/status of 401 \(Unauthorized\)$/)]);

    // GraphiQL keeps its headers (in local storage): none for whatever runs next.
    await typeInto(headersEditor, '');
  });

  it('logged no console error and its Content-Security-Policy refused nothing', async () => {
    expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
    // The probe's own refusal is the one error line the console may hold.
    expect(consoleErrors.filter((line) => !/^Executing inline script violates/.test(line))).toEqual([]);
  });
});

describe('GraphiQL resumes a subscription the server ended', () => {
  let brief: TestServer;
  let briefPage: Page;
  let briefCsp: CspWatch;
  const briefConsoleErrors: string[] = [];
  /** Every subscription request GraphiQL made (GraphQL over SSE), and those whose answer ended (the server ended the stream). */
  const streams: Request[] = [];
  const ended: Request[] = [];

  beforeAll(async () => {
    brief = await startTestServer({ env: { SSE_STREAM_MS: String(BRIEF_STREAM_MS), SSE_POLL_MS: '100' } });
    briefPage = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    briefCsp = await watchCsp(briefPage);
    briefPage.on('console', (message) => {
      if (message.type() === 'error') briefConsoleErrors.push(message.text());
    });
    briefPage.on('pageerror', (error) => briefConsoleErrors.push(`page error: ${error.message}`));
    briefPage.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/graphql' && request.headers()['accept'] === 'text/event-stream') streams.push(request);
    });
    briefPage.on('requestfinished', (request) => {
      if (streams.includes(request)) ended.push(request);
    });
  });

  afterAll(async () => {
    await briefPage?.close();
    await brief?.stop();
  });

  it('after SSE_STREAM_MS the stream ends, GraphiQL subscribes again by itself and shows a score submitted after the end', async () => {
    const first = randomInitials();
    await submitScore(brief.url, { game: 'demo', initials: first, value: 999_998 });
    await briefPage.goto(`${brief.url}/graphiql?query=${encodeURIComponent(SUBSCRIPTION)}`);
    await briefPage.locator('.graphiql-execute-button').waitFor();
    await briefPage.locator('.graphiql-execute-button').click();
    const shown = async () => (await briefPage.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    await expect.poll(shown, { timeout: 10_000 }).toMatch(new RegExp(`"initials": "${first}",\\s*"value": 999998`));

    // The server ends the first stream after SSE_STREAM_MS (the whole answer arrives: the server ended it, not the page).
    await expect.poll(() => streams.length > 0 && ended.includes(streams[0]!), { timeout: BRIEF_STREAM_MS + 5_000, interval: 20 }).toBe(true);

    // A score submitted after that end: GraphiQL, subscribed again by itself, shows it.
    const second = randomInitials();
    const submitted = Date.now();
    await submitScore(brief.url, { game: 'demo', initials: second, value: 999_999 });
    await expect.poll(shown, { timeout: DELIVERY_MS - (Date.now() - submitted), interval: 50 }).toMatch(
      new RegExp(`"initials": "${second}",\\s*"value": 999999[^]*"initials": "${first}"`),
    );

    // It came by a second subscription request of its own, the same as the first, and the subscription is still running.
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams.map((request) => [request.method(), request.postDataJSON()?.query])).toEqual(streams.map(() => ['POST', SUBSCRIPTION]));
    await expect(briefPage.locator('.graphiql-execute-button').getAttribute('aria-label')).resolves.toMatch(/^Stop/);
    await expect.poll(() => brief.app.openStreams.count, { timeout: 5_000, interval: 20 }).toBe(1);

    // Stopping it still ends it, in the page and on the server, and nothing comes back.
    await briefPage.locator('.graphiql-execute-button').click();
    await expect.poll(() => briefPage.locator('.graphiql-execute-button').getAttribute('aria-label')).toMatch(/^Execute/);
    await expect.poll(() => brief.app.openStreams.count, { timeout: 5_000, interval: 20 }).toBe(0);
    // No event marks a request that is not made: a stream's length is longer than GraphiQL's wait before subscribing again.
    const requested = streams.length;
    await new Promise((resolve) => setTimeout(resolve, BRIEF_STREAM_MS));
    expect(streams.length).toBe(requested);
    expect(brief.app.openStreams.count).toBe(0);

    expect(await briefCsp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
    expect(briefConsoleErrors.filter((line) => !/^Executing inline script violates/.test(line))).toEqual([]);
  });
});
