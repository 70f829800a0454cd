import { mkdirSync } from 'node:fs';
import type { Browser, Page, Response, Worker } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask } from '../test/support/tasks-client.ts';
import { startTestServer, type TestServer } from '../test/support/test-server.ts';
import { watchCsp, type CspWatch } from './csp-watch.ts';

/** Where the screenshots go (git-ignored). */
const SCREENSHOTS = new URL('../.artifacts/screenshots/', import.meta.url);

let server: TestServer;
let browser: Browser;
let page: Page;
let csp: CspWatch;
const offsite: string[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startTestServer();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  csp = await watchCsp(page);
  // Nothing may come from outside the service: note any request that tries.
  page.on('request', (request) => {
    if (!request.url().startsWith(server.url) && !request.url().startsWith('data:') && !request.url().startsWith('blob:')) {
      offsite.push(request.url());
    }
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * docs/spec/DECISIONS.md, "Security headers": the page's Content-Security-Policy refused
 * nothing it did — and, so that this cannot pass by seeing nothing, it did
 * refuse an inline script injected at the end, and the watch saw that.
 */
async function expectNoCspViolation(): Promise<void> {
  expect(await csp.probe()).toEqual({ probeRefused: true, probeRan: false, violations: [] });
}

const shot = (name: string) => page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, fullPage: false });

describe('pages in a real browser', () => {
  it('/docs renders the operations of the OpenAPI document', async () => {
    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const operations = await page.locator('.opblock').count();
    expect(operations).toBeGreaterThanOrEqual(15);
    await expect(page.locator('.opblock-summary-path', { hasText: '/api/tasks/{id}' }).first().isVisible()).resolves.toBe(true);
    // One operation opened, with its parameters and responses.
    await page.locator('.opblock-summary', { has: page.locator('.opblock-summary-path', { hasText: /^\/api\/health$/ }) }).click();
    await page.locator('.opblock.is-open .responses-wrapper').waitFor();
    await shot('docs');
    await expectNoCspViolation();
  });

  it('/graphiql runs { tasks { id title } } and shows the result, its assets and editor workers all loaded', async () => {
    await createTask(server.url, { title: 'seen in graphiql' });
    const loaded: { url: string; status: number; encoding: string | undefined }[] = [];
    const recordResponse = (response: Response) =>
      loaded.push({ url: response.url(), status: response.status(), encoding: response.headers()['content-encoding'] });
    page.on('response', recordResponse);
    const workers: string[] = [];
    const recordWorker = (worker: Worker) => workers.push(worker.url());
    page.on('worker', recordWorker);
    await page.goto(`${server.url}/graphiql`);
    await page.locator('.graphiql-execute-button').waitFor();
    await page.locator('.graphiql-execute-button').click();
    await page.getByText('seen in graphiql').first().waitFor();
    page.off('response', recordResponse);
    await shot('graphiql');
    expect(loaded.filter((response) => response.status >= 400)).toEqual([]);
    const bundle = loaded.find((response) => response.url.endsWith('/graphiql/assets/graphiql.js'));
    expect(bundle?.encoding).toBe('br');
    // Monaco starts its editor workers from our own files, not from inlined blobs.
    await expect.poll(() => workers.map((url) => url.slice(server.url.length)).sort(), { timeout: 10_000 }).toEqual(
      expect.arrayContaining(['/graphiql/assets/editorWorkerService.worker.js', '/graphiql/assets/graphql.worker.js', '/graphiql/assets/json.worker.js']),
    );
    page.off('worker', recordWorker);
    await expectNoCspViolation();
  });

  it('/versioning renders the deprecation policy', async () => {
    await page.goto(`${server.url}/versioning`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Versioning and deprecation policy');
    await expect(page.getByText('GET /api/v0/tasks').first().isVisible()).resolves.toBe(true);
    await shot('versioning');
    await expectNoCspViolation();
  });

  it('loaded nothing from outside the service', () => {
    expect(offsite).toEqual([]);
  });
});
