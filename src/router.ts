/** The public type entry for typed clients: `import type { AppRouter } from 'lab-api/router'`. */
export type { AppRouter } from './routers/app-router.ts';
