import { router } from '../../trpc.ts';
import { statsProcedure } from './stats.ts';

export const statsRouter = router({ get: statsProcedure });
