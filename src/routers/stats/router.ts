import { router } from '../../procedures/trpc.ts';
import { statsProcedure } from './stats.ts';

export const statsRouter = router({ get: statsProcedure });
