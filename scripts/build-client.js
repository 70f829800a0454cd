// The client package (packages/client, published as @lab-api/client): the
// files tsc compiled from src/client/, copied into the package's dist/. Its
// declarations name only @trpc types (src/client/app-router.ts sees to it);
// the source maps stay behind, as they point at sources the package leaves
// out. Plain JavaScript, run by scripts/build.js.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `<root>/packages/client/dist` from `<root>/dist/client`; returns the files written. */
export function buildClientPackage(root) {
  const from = `${root}/dist/client`;
  const to = `${root}/packages/client/dist`;
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const files = readdirSync(from).filter((name) => name.endsWith('.js') || name.endsWith('.d.ts'));
  for (const name of files) {
    const text = readFileSync(`${from}/${name}`, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
    writeFileSync(`${to}/${name}`, text);
  }
  return files;
}
