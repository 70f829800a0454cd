import { router } from '../../trpc.ts';
import { limitsDemoProcedure } from './demo.ts';

export const limitsRouter = router({ demo: limitsDemoProcedure });
