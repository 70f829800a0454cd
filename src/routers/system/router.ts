import { router } from '../../procedures/trpc.ts';
import { healthProcedure } from './health.ts';
import { readyProcedure } from './ready.ts';

export const systemRouter = router({ health: healthProcedure, ready: readyProcedure });
