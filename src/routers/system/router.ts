import { router } from '../../trpc.ts';
import { healthProcedure } from './health.ts';

export const systemRouter = router({ health: healthProcedure });
