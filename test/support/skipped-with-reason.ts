import { relative } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Lists, after the run, every test skipped with a note (PostgreSQL-only
 * tests on the embedded database, see postgres-only.ts): a skip says why,
 * never silently.
 */
export class SkippedWithReason implements Reporter {
  private readonly skipped: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (result.state === 'skipped' && result.note) {
      this.skipped.push(`  ↓ ${relative(process.cwd(), testCase.module.moduleId)} > ${testCase.fullName}\n      ${result.note}`);
    }
  }

  onTestRunEnd(): void {
    if (this.skipped.length === 0) return;
    process.stdout.write(`\nSkipped, with the reason:\n${this.skipped.join('\n')}\n`);
  }
}
