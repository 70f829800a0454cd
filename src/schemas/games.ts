/** docs/spec/SPEC.md, "Games": the boards scores can be submitted to. */
export const GAMES = {
  toppler: { name: 'Tower Toppler', unit: 'points', better: 'higher', max: 20000 },
  marble: { name: 'Marble Maze', unit: 'ms', better: 'lower', max: 3600000 },
  stacker: { name: 'Stacker', unit: 'slabs', better: 'higher', max: 500 },
  runner: { name: 'Starfield Runner', unit: 'points', better: 'higher', max: 1000000 },
  demo: { name: 'Lab demo', unit: 'points', better: 'higher', max: 1000000 },
} as const satisfies Record<string, { name: string; unit: string; better: 'higher' | 'lower'; max: number }>;

export type GameId = keyof typeof GAMES;
export const GAME_IDS = Object.keys(GAMES) as [GameId, ...GameId[]];
