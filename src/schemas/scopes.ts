/** The scopes a key can carry (docs/spec/SPEC.md, "Scopes"). */
export const SCOPES = ['stats:read', 'tasks:export'] as const;
export type Scope = (typeof SCOPES)[number];
