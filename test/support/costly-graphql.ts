/**
 * GraphQL documents that cost far more to answer than to send: the shapes of
 * the second outside attack round (issue 28) and the most expensive ones the
 * limits admit. Used by the cost tests and the fuzzer.
 */

/** `count` distinct aliases of `field`: `a:name b:name … a1:name …` (graphql-js runs repeated response keys once). */
export function aliased(count: number, field: string): string {
  return Array.from({ length: count }, (_, i) => `${String.fromCharCode(97 + (i % 26))}${i >= 26 ? Math.floor(i / 26) : ''}:${field}`).join(' ');
}

/**
 * The round's document: `{__schema{types{...S0}}}` and 8 chained fragments,
 * each spreading the next under `aliases` aliases (`__Type` → `fields`,
 * `__Field` → `type`, then `__Type` → `ofType`): 19,683 field selections
 * once expanded for 3 aliases, 174,763 for 4, in under 1,000 characters.
 */
export function chainedFragments(aliases: number): string {
  const spreads = (field: string, next: string) => aliased(aliases, `${field}{...${next}}`);
  const fragments = [`fragment S0 on __Type{name ${spreads('fields', 'S1')}}`, `fragment S1 on __Field{name ${spreads('type', 'S2')}}`];
  for (let level = 2; level < 7; level++) fragments.push(`fragment S${level} on __Type{name ${spreads('ofType', `S${level + 1}`)}}`);
  fragments.push(`fragment S7 on __Type{name ${aliased(aliases, 'ofType{name}')}}`);
  return `{__schema{types{...S0}}}${fragments.join('')}`;
}

/** chainedFragments' field selections once expanded, level by level from the innermost fragment. */
export function chainedFragmentsCount(aliases: number): number {
  let below = 1 + aliases * 2; // S7: name, and each alias of ofType{name}
  for (let level = 6; level >= 0; level--) below = 1 + aliases * (1 + below);
  return 2 + below; // __schema and types
}

/**
 * docs/spec/DECISIONS.md's example of the most expensive admitted document: aliased
 * `__schema { types { … } }` selections of 40 aliased names each, filled up
 * to `fields` field selections (987 by default: 23 × 42 + 21).
 */
export function aliasedSchemaTypes(fields = 987): string {
  const perSchema = 2 + 40;
  const full = Math.floor(fields / perSchema);
  const rest = fields - full * perSchema;
  const selections = Array.from({ length: full }, (_, i) => `s${i}:__schema{types{...N}}`);
  if (rest > 2) selections.push(`s${full}:__schema{types{${aliased(rest - 2, 'name')}}}`);
  return `{${selections.join(' ')}} fragment N on __Type{${aliased(40, 'name')}}`;
}

/**
 * Two of introspection's lists nested (every type's fields) under 10
 * aliased `__schema` selections of 97 aliased names: 1,000 selections, the
 * most resolved fields we found within the limits.
 */
export function aliasedSchemaTypeFields(): string {
  return `{${Array.from({ length: 10 }, (_, i) => `s${i}:__schema{types{fields{...N}}}`).join(' ')}} fragment N on __Field{${aliased(97, 'name')}}`;
}

/**
 * Data rather than introspection: 20 aliased `tasks(limit: 50)` (the width
 * limit) of `perTask` aliased titles each. With 48 (980 selections) it is
 * the document of the attack on the fixes (48,000 fields, 59 MB of answer);
 * with 2 the most the limits admit (2,020 fields with every list full).
 */
export function aliasedTaskTitles(perTask: number): string {
  return `{${Array.from({ length: 20 }, (_, i) => `t${i}:tasks(limit:50){...T}`).join(' ')}} fragment T on Task{${aliased(perTask, 'title')}}`;
}

/**
 * Cheap to run, dear to validate: one field repeated under one response key
 * as often as 4,000 characters allow (graphql-js compares every pair). A
 * comment names `variant`, so each is a document Yoga has not cached.
 */
export function repeatedField(variant: number): string {
  return `#${variant}\n{${'tasks{id}'.repeat(440)}}`;
}
