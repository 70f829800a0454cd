import { liveBoardProcedure } from '../../routers/scores/live-board.ts';
import { topScoresProcedure } from '../../routers/scores/top-scores.ts';
import type { Leaderboard } from '../../services/scores/get-leaderboard.ts';
import { PAGE_SIZES } from '../../schemas/page-size.ts';
import { builder } from '../builder.ts';
import { throughProcedure, throughSubscription } from '../resolve-through-procedure.ts';
import { GameType } from './game.ts';
import { ScoreEntryType } from './score-entry.ts';

const LeaderboardType = builder.objectRef<Leaderboard>('Leaderboard').implement({
  fields: (t) => ({
    game: t.field({ type: GameType, resolve: (board) => board.game }),
    name: t.exposeString('name'),
    unit: t.exposeString('unit'),
    better: t.exposeString('better', { description: 'higher or lower' }),
    entries: t.field({ type: [ScoreEntryType], resolve: (board) => board.entries }),
  }),
});

const top = throughProcedure(topScoresProcedure, 'scores.top');

builder.queryFields((t) => ({
  leaderboard: t.field({
    type: LeaderboardType,
    description: "A game's best scores, best first",
    args: {
      game: t.arg({ type: GameType, required: true }),
      limit: t.arg.int({ defaultValue: PAGE_SIZES.leaderboard.default, description: PAGE_SIZES.leaderboard.description }),
    },
    extensions: top.extensions,
    resolve: (_root, args, context) => top.resolve(args, context),
  }),
}));

const live = throughSubscription(liveBoardProcedure, 'scores.live');

builder.subscriptionFields((t) => ({
  leaderboard: t.field({
    type: LeaderboardType,
    description: "A game's best scores, best first: the board at once, then after each score for the game (GraphQL over SSE)",
    args: {
      game: t.arg({ type: GameType, required: true }),
      limit: t.arg.int({ defaultValue: PAGE_SIZES.leaderboard.default, description: PAGE_SIZES.leaderboard.description }),
    },
    extensions: live.extensions,
    subscribe: (_root, args, context) => live.subscribe(args, context),
    resolve: (board) => board,
  }),
}));
