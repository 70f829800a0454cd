import type { ConsoleMessage, Page } from 'playwright-core';

/** What a page's Content-Security-Policy refused while the watch looked. */
export interface CspReport {
  /** Whether the probe's inline script was refused and its refusal seen: the watch can see, and the policy refuses inline script. */
  probeRefused: boolean;
  /** Whether the probe's script ran anyway. */
  probeRan: boolean;
  /** Every other refusal: `securitypolicyviolation` events and the console's reports of them. */
  violations: string[];
}

export interface CspWatch {
  /**
   * Injects an inline script, which every page's policy refuses, waits
   * until its refusal has been reported both as an event and in the console,
   * and returns what was reported since the last probe. Events and console
   * messages each arrive in order, so once the probe's have arrived, so has
   * every refusal the page's own work caused before it.
   */
  probe(): Promise<CspReport>;
}

/** Marks the probe's script element, so that its refusal is told apart from the page's own. */
const PROBE_ATTRIBUTE = 'data-csp-probe';
const PROBE_EVENT = 'probe refused';
/** Chromium's console words for a refused inline script; the probe's is the one such line expected. */
const INLINE_SCRIPT_REFUSED = /^Executing inline script violates/;
const CSP_CONSOLE = /Content Security Policy/i;
const WAIT_MS = 10_000;

/**
 * Watches a page for CSP violations from before its first script runs: a
 * listener added by an init script (the DevTools protocol adds it, so the
 * page's policy does not apply to it) reports every `securitypolicyviolation`
 * event to the test, and the console's CSP reports are collected beside them.
 * Call before the page's first navigation.
 */
export async function watchCsp(page: Page): Promise<CspWatch> {
  let events: string[] = [];
  let consoleLines: string[] = [];
  await page.exposeBinding('reportCspViolation', (_source, text: string) => {
    events.push(text);
  });
  await page.addInitScript(`
    addEventListener('securitypolicyviolation', (event) => {
      const probe = event.target instanceof Element && event.target.hasAttribute('${PROBE_ATTRIBUTE}');
      window.reportCspViolation(probe ? '${PROBE_EVENT}' : event.effectiveDirective + ' refused ' + (event.blockedURI || 'inline') + ' (' + event.sourceFile + ':' + event.lineNumber + ')');
    }, true);
  `);
  page.on('console', (message: ConsoleMessage) => {
    if (CSP_CONSOLE.test(message.text())) consoleLines.push(message.text());
  });

  return {
    async probe() {
      await page.evaluate(`(() => {
        const script = document.createElement('script');
        script.setAttribute('${PROBE_ATTRIBUTE}', '');
        script.textContent = 'window.cspProbeRan = true';
        document.body.append(script);
      })()`);
      const deadline = Date.now() + WAIT_MS;
      const arrived = () => events.includes(PROBE_EVENT) && consoleLines.some((line) => INLINE_SCRIPT_REFUSED.test(line));
      while (!arrived() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const probeRefused = arrived();
      const probeRan = (await page.evaluate('window.cspProbeRan === true')) === true;
      const probeLine = consoleLines.findIndex((line) => INLINE_SCRIPT_REFUSED.test(line));
      const violations = [
        ...events.filter((event) => event !== PROBE_EVENT),
        ...consoleLines.filter((_, index) => index !== probeLine).map((line) => `console: ${line}`),
      ];
      events = [];
      consoleLines = [];
      return { probeRefused, probeRan, violations };
    },
  };
}
