// The leaderboard page (web/) bundled with esbuild into dist/public/app: the
// HTML, and its script and styles under content-hashed names, so that they
// can be cached for a year while the HTML is revalidated. Plain JavaScript,
// run by scripts/build.js.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build } from 'esbuild';

/** Builds the page into `<outdir>`; returns the asset names the HTML links to. */
export async function buildApp(root, outdir = `${root}/dist/public/app`) {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'web/app.ts', styles: 'web/app.css' },
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    entryNames: '[name]-[hash]',
    outdir: `${outdir}/assets`,
    // The page uses the client package's entry point, compiled from its source here.
    alias: { '@lab-api/client': './src/client/create-client.ts' },
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([file]) => !file.endsWith('.map'));
  const named = (entry) => basename(outputs.find(([, output]) => output.entryPoint === entry)[0]);
  const script = named('web/app.ts');
  const styles = named('web/app.css');
  const html = readFileSync(`${root}/web/index.html`, 'utf8')
    .replace('href="/app/app.css"', `href="/app/assets/${styles}"`)
    .replace('src="/app/app.js"', `src="/app/assets/${script}"`);
  writeFileSync(`${outdir}/index.html`, html);
  return { script, styles };
}
