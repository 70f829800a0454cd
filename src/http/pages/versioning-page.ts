import { VERSION_0_HEADERS } from '../../schemas/api-versions.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';
import { hashSource, type PagePolicy } from './page-headers.ts';

export const VERSIONING_PATH = '/versioning';

const deprecatedOn = new Date(Number(VERSION_0_HEADERS.Deprecation.slice(1)) * 1000);
const sunsetOn = new Date(VERSION_0_HEADERS.Sunset);
const day = (date: Date) => isoTimestampOf(date).slice(0, 10);

/** The page's only styles, inline: allowed by their hash, so the page needs no second request. */
const STYLE = `
    body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
    code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; }
    table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .3em .6em; text-align: left; }
  `;

/** What /versioning loads: its own <style> block, nothing else (no script, no image, no request). */
export const VERSIONING_POLICY: PagePolicy = {
  'style-src': [hashSource(STYLE)],
};

/** The deprecation policy v0's `Link: </versioning>; rel="deprecation"` points to. */
export const VERSIONING_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Lab API versioning and deprecation policy</title>
  <style>${STYLE}</style>
</head>
<body>
  <h1>Versioning and deprecation policy</h1>
  <p>The API description has version 1.0.0. Task representations are versioned two ways:</p>
  <ul>
    <li><strong>By header</strong> on <code>GET /api/tasks/{id}</code>: <code>API-Version: 1</code> (the default) returns a
      <em>Task</em>, <code>API-Version: 2</code> a <em>TaskV2</em>; the answer echoes the version and carries <code>Vary: API-Version</code>.</li>
    <li><strong>By path</strong>: <code>/api/v2/tasks</code> and <code>/api/v2/tasks/{id}</code> always answer version 2.</li>
  </ul>
  <p>Version 2 replaces the <code>done</code> flag with <code>status</code> (<code>open</code> or <code>done</code>) and adds <code>links.self</code>.</p>

  <h2 id="v0">Deprecated: version 0</h2>
  <table>
    <tr><th>What</th><td><code>GET /api/v0/tasks</code>, the newest 20 tasks as <code>{tasks: [{id, title, done}]}</code></td></tr>
    <tr><th>Deprecated since</th><td>${day(deprecatedOn)} (<code>Deprecation: ${VERSION_0_HEADERS.Deprecation}</code>, RFC 9745)</td></tr>
    <tr><th>Sunset</th><td>${day(sunsetOn)} (<code>Sunset: ${VERSION_0_HEADERS.Sunset}</code>, RFC 8594)</td></tr>
    <tr><th>Successor</th><td><a href="/docs"><code>GET /api/tasks</code></a> (<code>Link: &lt;/api/tasks&gt;; rel="successor-version"</code>)</td></tr>
  </table>
  <p>Version 0 keeps working until its sunset. Every answer from it carries the Deprecation, Sunset and Link headers above,
    so clients can find this page and the successor without reading it.</p>
</body>
</html>
`;
