import { router } from '../../procedures/trpc.ts';
import { limitsDemoProcedure } from './demo.ts';

export const limitsRouter = router({ demo: limitsDemoProcedure });
