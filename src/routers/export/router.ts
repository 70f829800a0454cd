import { router } from '../../procedures/trpc.ts';
import { exportTasksProcedure } from './export-tasks.ts';

export const exportRouter = router({ tasks: exportTasksProcedure });
