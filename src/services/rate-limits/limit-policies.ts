import type { ServiceSettings } from '../service-context.ts';

/** The limits of SPEC "Limits", by the names DECISIONS gives them. */
export type LimitName = 'task-writes' | 'key-create' | 'token' | 'score-submit' | 'graphql' | 'demo';

export interface LimitPolicy {
  name: LimitName;
  limit: number;
  windowSeconds: number;
}

export function limitPolicy(settings: ServiceSettings, name: LimitName, authenticated: boolean): LimitPolicy {
  const { rateLimits } = settings;
  switch (name) {
    case 'task-writes':
      return { name, limit: authenticated ? 120 : rateLimits.taskWritesAnonymous, windowSeconds: 60 };
    case 'key-create':
      return { name, limit: rateLimits.keysPerHour, windowSeconds: 3600 };
    case 'token':
      return { name, limit: 20, windowSeconds: 60 };
    case 'score-submit':
      return { name, limit: rateLimits.scoresPerMinute, windowSeconds: 60 };
    case 'graphql':
      return { name, limit: authenticated ? 240 : 60, windowSeconds: 60 };
    case 'demo':
      return { name, limit: 5, windowSeconds: 10 };
  }
}
