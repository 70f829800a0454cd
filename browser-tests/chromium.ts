import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (CHROMIUM_PATH elsewhere): the browser the tests drive, no download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium, headless and quiet: no first-run work, no background traffic that would count as a request from the page. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
