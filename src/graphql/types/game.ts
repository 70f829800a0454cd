import { GAME_IDS } from '../../schemas/games.ts';
import { builder } from '../builder.ts';

export const GameType = builder.enumType('Game', { values: GAME_IDS });
