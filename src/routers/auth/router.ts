import { router } from '../../procedures/trpc.ts';
import { issueTokenProcedure } from './issue-token.ts';
import { meProcedure } from './me.ts';

export const authRouter = router({ token: issueTokenProcedure, me: meProcedure });
