import { router } from '../trpc.ts';
import { systemRouter } from './system/router.ts';
import { tasksRouter } from './tasks/router.ts';

/** The one router: REST paths, the OpenAPI document and /api/trpc all come from it. */
export const appRouter = router({
  system: systemRouter,
  tasks: tasksRouter,
});

export type AppRouter = typeof appRouter;
