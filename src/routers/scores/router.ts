import { router } from '../../trpc.ts';
import { getLeaderboardProcedure } from './get-leaderboard.ts';
import { submitScoreProcedure } from './submit-score.ts';

export const scoresRouter = router({ submit: submitScoreProcedure, leaderboard: getLeaderboardProcedure });
