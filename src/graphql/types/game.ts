import { GAME_IDS } from '../../services/scores/games.ts';
import { builder } from '../builder.ts';

export const GameType = builder.enumType('Game', { values: GAME_IDS });
