import type { $ZodIssue } from 'zod/v4/core';
import type { FieldError } from './app-error.ts';

/**
 * Turns zod issues into the `errors` entries of docs/spec/DECISIONS.md, "Problems": paths
 * joined with dots and no prefix, and one `Unknown field` entry per unknown key.
 */
export function toFieldErrors(issues: readonly $ZodIssue[]): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ path: [...base, key].join('.'), message: 'Unknown field' });
    } else {
      errors.push({ path: base.join('.'), message: issue.message });
    }
  }
  return errors;
}
