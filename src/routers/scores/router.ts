import { router } from '../../procedures/trpc.ts';
import { liveBoardProcedure } from './live-board.ts';
import { submitScoreProcedure } from './submit-score.ts';
import { topScoresProcedure } from './top-scores.ts';

export const scoresRouter = router({ top: topScoresProcedure, submit: submitScoreProcedure, live: liveBoardProcedure });
