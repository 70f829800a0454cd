import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');

/** `npm run lint`'s import rules, run on a copy of src/ that a test may spoil. */
async function cruiseCopy(spoil: (src: string) => void): Promise<{ failed: boolean; output: string }> {
  const copy = mkdtempSync(join(tmpdir(), 'import-rules-'));
  copies.push(copy);
  cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
  cpSync(join(root, 'tsconfig.json'), join(copy, 'tsconfig.json'));
  cpSync(join(root, '.dependency-cruiser.cjs'), join(copy, '.dependency-cruiser.cjs'));
  spoil(join(copy, 'src'));
  try {
    const { stdout } = await run(depcruise, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: copy });
    return { failed: false, output: stdout };
  } catch (error) {
    return { failed: true, output: String((error as { stdout?: string }).stdout) };
  }
}

const copies: string[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) rmSync(copy, { recursive: true, force: true });
});

describe('the import rules of npm run lint', () => {
  it('pass on src as it is', async () => {
    const result = await cruiseCopy(() => {});
    expect(result.output).toContain('no dependency violations found');
    expect(result.failed).toBe(false);
  });

  it('fail on an upward import: a service reaching into a transport', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'services', 'retention.ts'), "\nimport '../http/cors.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('not-in-allowed: src/services/retention.ts → src/http/cors.ts');
  });

  it('fail on a transport importing the database', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'http', 'vary.ts'), "\nimport '../db/database.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('not-in-allowed: src/http/vary.ts → src/db/database.ts');
  });

  it('fail on the shared HTTP plumbing reaching up into a transport', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'http', 'vary.ts'), "\nimport '../rest/rest-routes.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('not-in-allowed: src/http/vary.ts → src/rest/rest-routes.ts');
  });

  it('fail on one transport reaching into another', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'rest', 'rest-routes.ts'), "\nimport '../trpc/trpc-response-headers.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('not-in-allowed: src/rest/rest-routes.ts → src/trpc/trpc-response-headers.ts');
  });

  it('fail on anything but start-up importing the dispatch', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'http', 'cors.ts'), "\nimport './request-handler.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('dispatch-on-top: src/http/cors.ts → src/http/request-handler.ts');
  });

  it('fail on the client loading the server at run time rather than as types', async () => {
    const result = await cruiseCopy((src) => appendFileSync(join(src, 'client', 'create-client.ts'), "\nimport '../routers/app-router.ts';\n"));
    expect(result.failed).toBe(true);
    expect(result.output).toContain('not-in-allowed: src/client/create-client.ts → src/routers/app-router.ts');
  });

  it('fail on a cycle, even inside one folder', async () => {
    const result = await cruiseCopy((src) => {
      writeFileSync(join(src, 'lib', 'cycle-probe.ts'), "import './clock.ts';\nexport const probe = 1;\n");
      appendFileSync(join(src, 'lib', 'clock.ts'), "\nimport './cycle-probe.ts';\n");
    });
    expect(result.failed).toBe(true);
    expect(result.output).toContain('no-circular: src/lib/clock.ts');
  });
});

describe("npm run lint's refusal of a library's private paths", () => {
  const eslint = new ESLint({ cwd: root });
  const restrictedIn = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath: join(root, filePath) }))[0]!.messages.filter((message) => message.ruleId === '@typescript-eslint/no-restricted-imports');

  it.each([
    ['src/trpc/probe.ts', '@trpc/server/unstable-core-do-not-import'],
    ['src/lib/probe.ts', 'some-library/internal/state'],
    ['src/client/probe.ts', '@trpc/client/unstable-internals'],
  ])('refuses in %s an import of %s, naming the ADR', async (filePath, path) => {
    const refused = await restrictedIn(filePath, `import { x } from '${path}';\nexport const y = x;\n`);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.message).toContain('docs/adr/0009-speed-measures.md');
  });

  it("lets a library's public entry point through", async () => {
    expect(await restrictedIn('src/trpc/probe.ts', "import { TRPCError } from '@trpc/server';\nexport const y = TRPCError;\n")).toEqual([]);
  });
});
