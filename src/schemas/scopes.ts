/** The scopes a key can carry (SPEC "Scopes"). */
export const SCOPES = ['stats:read', 'tasks:export'] as const;
export type Scope = (typeof SCOPES)[number];
