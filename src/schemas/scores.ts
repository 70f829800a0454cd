import { z } from 'zod';
import { GAME_IDS, GAMES } from './games.ts';
import { PAGE_SIZES, pageSizeSchema } from './page-size.ts';
import { lastEventIdSchema } from './headers.ts';
import { text, timestampSchema, uuidSchema } from './text.ts';

const maxima = GAME_IDS.map((game) => `${game} ${GAMES[game].max}`).join(', ');

const gameSchema = z.enum(GAME_IDS).meta({ description: 'toppler, marble, stacker, runner or demo' });

const initialsSchema = text({ error: 'Three capital letters, A–Z' })
  .regex(/^[A-Z]{3}$/, 'Three capital letters, A–Z')
  .meta({ description: 'Three capital letters, A–Z' });

export const newScoreSchema = z
  .strictObject({
    game: gameSchema,
    initials: initialsSchema,
    value: z.number().int().min(0).meta({ description: `0 up to the game's maximum: ${maxima}` }),
  })
  .refine((score) => score.value <= GAMES[score.game].max, {
    path: ['value'],
    error: (issue) => {
      const game = GAMES[(issue.input as { game: keyof typeof GAMES }).game];
      return `At most ${game.max} for ${game.name}`;
    },
    // Judge the maximum whenever game and value are valid, even if another field is not.
    when: (payload) => {
      const score = payload.value as { game?: unknown; value?: unknown } | undefined;
      return typeof score?.game === 'string' && Object.hasOwn(GAMES, score.game) && Number.isInteger(score.value);
    },
  });

export const scoreSchema = z
  .object({
    id: uuidSchema,
    game: gameSchema,
    initials: z.string(),
    value: z.number().int(),
    rank: z.number().int().meta({ description: '1 + the stored scores of the game that are better, or equal and earlier' }),
    createdAt: timestampSchema,
  })
  .meta({ id: 'Score' });

export const leaderboardQuerySchema = z.object({
  game: gameSchema,
  limit: pageSizeSchema(PAGE_SIZES.leaderboard),
});

/**
 * scores.live (docs/spec/DECISIONS.md, "Live updates on every transport"): a board to follow, and
 * the event id the client last saw, which tRPC's subscription link sends when it reconnects.
 */
export const liveBoardInputSchema = leaderboardQuerySchema.extend({ lastEventId: lastEventIdSchema });

export const leaderboardSchema = z
  .object({
    game: gameSchema,
    name: z.string(),
    unit: z.string(),
    better: z.enum(['higher', 'lower']),
    entries: z.array(
      z
        .object({
          rank: z.number().int().meta({ description: '1-based position in this list' }),
          id: uuidSchema,
          initials: z.string(),
          value: z.number().int(),
          createdAt: timestampSchema,
        })
        .meta({ id: 'ScoreEntry' }),
    ),
  })
  .meta({ id: 'Leaderboard', description: 'Best first; ties go to the earlier createdAt' });
