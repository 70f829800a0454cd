import type { ServiceSettings } from '../service-context.ts';

/** The limits of docs/spec/SPEC.md, "Limits", by the names docs/spec/DECISIONS.md gives them. */
export type LimitName = 'task-writes' | 'key-create' | 'token' | 'score-submit' | 'graphql' | 'demo' | 'webhook-writes';

/**
 * Whose count a request adds to: the caller's (`key:<id>` when it carries a
 * valid key or token, else `ip:<address>`), or always the address's.
 */
export type CountedPer = 'caller' | 'address';

/**
 * One limit, declared once: every transport that reaches a limited operation
 * enforces it through this. Its quotas come from the configuration
 * (RATE_LIMIT_* variables, defaults as docs/spec/SPEC.md and docs/spec/DECISIONS.md give them).
 */
export interface LimitDeclaration {
  windowSeconds: number;
  /** Requests per window, for an anonymous request and for one with a valid key or token. */
  quota(settings: ServiceSettings): { anonymous: number; authenticated: number };
  countedPer: CountedPer;
}

export const LIMITS: Record<LimitName, LimitDeclaration> = {
  'task-writes': {
    windowSeconds: 60,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.taskWritesAnonymous, authenticated: rateLimits.taskWritesAuthenticated }),
    countedPer: 'caller',
  },
  // Keys must not mint keys: a new key would otherwise bring 5 more creations with it (docs/spec/DECISIONS.md).
  'key-create': {
    windowSeconds: 3600,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.keysPerHour, authenticated: rateLimits.keysPerHour }),
    countedPer: 'address',
  },
  token: {
    windowSeconds: 60,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.tokensPerMinute, authenticated: rateLimits.tokensPerMinute }),
    countedPer: 'caller',
  },
  'score-submit': {
    windowSeconds: 60,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.scoresPerMinute, authenticated: rateLimits.scoresPerMinute }),
    countedPer: 'caller',
  },
  graphql: {
    windowSeconds: 60,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.graphqlAnonymous, authenticated: rateLimits.graphqlAuthenticated }),
    countedPer: 'caller',
  },
  demo: {
    windowSeconds: 10,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.demoPer10Seconds, authenticated: rateLimits.demoPer10Seconds }),
    countedPer: 'caller',
  },
  // Creating and deleting subscriptions (docs/spec/DECISIONS.md, "Webhook writes"): every creation sends a verification request.
  'webhook-writes': {
    windowSeconds: 60,
    quota: ({ rateLimits }) => ({ anonymous: rateLimits.webhookWritesPerMinute, authenticated: rateLimits.webhookWritesPerMinute }),
    countedPer: 'caller',
  },
};

/** Who sent a request, as far as limits care: the verified key (when any) and the client address. */
export interface Requester {
  keyId: string | undefined;
  address: string;
}

export interface LimitPolicy {
  name: LimitName;
  limit: number;
  windowSeconds: number;
  /** The counter this request adds to. */
  client: string;
}

/** The limit as it applies to this requester. */
export function limitPolicy(settings: ServiceSettings, name: LimitName, requester: Requester): LimitPolicy {
  const { windowSeconds, quota, countedPer } = LIMITS[name];
  const { anonymous, authenticated } = quota(settings);
  const byKey = countedPer === 'caller' && requester.keyId !== undefined;
  return {
    name,
    windowSeconds,
    limit: requester.keyId === undefined ? anonymous : authenticated,
    client: byKey ? `key:${requester.keyId}` : `ip:${requester.address}`,
  };
}
