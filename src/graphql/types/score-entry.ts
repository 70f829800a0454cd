import type { Leaderboard } from '../../services/scores/get-leaderboard.ts';
import { builder } from '../builder.ts';

export const ScoreEntryType = builder.objectRef<Leaderboard['entries'][number]>('ScoreEntry').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    id: t.exposeID('id'),
    initials: t.exposeString('initials'),
    value: t.exposeInt('value'),
    createdAt: t.exposeString('createdAt'),
  }),
});
