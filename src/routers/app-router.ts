import { router } from '../procedures/trpc.ts';
import { authRouter } from './auth/router.ts';
import { exportRouter } from './export/router.ts';
import { keysRouter } from './keys/router.ts';
import { limitsRouter } from './limits/router.ts';
import { scoresRouter } from './scores/router.ts';
import { statsRouter } from './stats/router.ts';
import { systemRouter } from './system/router.ts';
import { tasksRouter } from './tasks/router.ts';
import { webhooksRouter } from './webhooks/router.ts';

/** The one router: REST paths, the OpenAPI document and /api/trpc all come from it. */
export const appRouter = router({
  system: systemRouter,
  tasks: tasksRouter,
  keys: keysRouter,
  auth: authRouter,
  stats: statsRouter,
  export: exportRouter,
  limits: limitsRouter,
  scores: scoresRouter,
  webhooks: webhooksRouter,
});
