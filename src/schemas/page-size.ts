import { z } from 'zod';

/** docs/spec/SPEC.md: every list takes at most 50 entries a page. */
export const MAX_PAGE_SIZE = 50;

export interface PageSize {
  /** Entries when the caller names no size. */
  default: number;
  description: string;
}

/** The three page sizes of the API, for zod and for GraphQL's arguments alike. */
export const PAGE_SIZES = {
  newestTasks: { default: 5, description: `How many, 1 to ${MAX_PAGE_SIZE}` },
  taskPage: { default: 20, description: `Page size, 1 to ${MAX_PAGE_SIZE}` },
  leaderboard: { default: 10, description: `Entries, 1 to ${MAX_PAGE_SIZE}` },
} as const satisfies Record<string, PageSize>;

export function pageSizeSchema(size: PageSize) {
  return z.number().int().min(1).max(MAX_PAGE_SIZE).default(size.default).meta({ description: size.description });
}
