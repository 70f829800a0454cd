/**
 * Random GraphQL documents over the service's schema and introspection's:
 * aliases at every level, named fragments spread (and spread again) under
 * aliases, inline fragments — the shapes that multiply work without looking
 * large. Built from a seed, so fast-check can name the one that failed.
 */

/** Each object type's fields: the type beneath, or null for a leaf. */
const FIELDS: Record<string, Record<string, string | null>> = {
  Query: { tasks: 'Task', task: 'Task', leaderboard: 'Leaderboard', __schema: '__Schema', __type: '__Type', __typename: null },
  Task: { id: null, title: null, done: null, createdAt: null, updatedAt: null, __typename: null },
  Leaderboard: { game: null, name: null, unit: null, better: null, entries: 'ScoreEntry', __typename: null },
  ScoreEntry: { rank: null, id: null, initials: null, value: null, createdAt: null, __typename: null },
  __Schema: { types: '__Type', queryType: '__Type', mutationType: '__Type', directives: '__Directive', description: null },
  __Type: { name: null, kind: null, description: null, fields: '__Field', ofType: '__Type', enumValues: '__EnumValue', inputFields: '__InputValue', interfaces: '__Type', possibleTypes: '__Type' },
  __Field: { name: null, description: null, isDeprecated: null, args: '__InputValue', type: '__Type' },
  __InputValue: { name: null, defaultValue: null, type: '__Type' },
  __EnumValue: { name: null, isDeprecated: null },
  __Directive: { name: null, locations: null, isRepeatable: null, args: '__InputValue' },
};

const ARGUMENTS: Record<string, string> = {
  tasks: '(limit: 50)',
  task: '(id: "00000000-0000-0000-0000-000000000000")',
  leaderboard: '(game: demo, limit: 50)',
  __type: '(name: "__Type")',
};

/** mulberry32: a small, fast, seeded generator. */
function generator(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** Introspection lists graphql-js lets nest at most twice (its MaxIntrospectionDepthRule). */
const NESTING_LISTS = new Set(['fields', 'interfaces', 'possibleTypes', 'inputFields']);

/**
 * Object fields of introspection's types that lead to another of them, the
 * ones that lead somewhere in this schema more often (it has no interfaces,
 * unions or input types, and few arguments).
 */
const LINKS: Record<string, [string, string][]> = {
  __Type: [['ofType', '__Type'], ['ofType', '__Type'], ['fields', '__Field'], ['fields', '__Field'], ['interfaces', '__Type'], ['possibleTypes', '__Type'], ['inputFields', '__InputValue']],
  __Field: [['type', '__Type'], ['type', '__Type'], ['args', '__InputValue']],
  __InputValue: [['type', '__Type']],
};

/**
 * A chain of fragments, each spreading the next under a few aliases of a
 * field that leads on: the work doubles, triples… at every link.
 */
function chainDocument(random: (below: number) => number): string {
  const links = 4 + random(7);
  const aliases = 2 + random(4);
  const fragments: string[] = [];
  let type = '__Type';
  let lists = 0;
  for (let link = 0; link < links; link++) {
    const choices = LINKS[type]!.filter(([field]) => lists < 2 || !NESTING_LISTS.has(field));
    const [field, next] = choices[random(choices.length)]!;
    lists += NESTING_LISTS.has(field) ? 1 : 0;
    const last = link === links - 1;
    const spread = last ? '__typename' : `...C${link + 1}`;
    fragments.push(`fragment C${link} on ${type} { ${type === '__Type' ? 'name ' : ''}${Array.from({ length: aliases }, (_, i) => `c${link}_${i}: ${field} { ${spread} }`).join(' ')} }`);
    type = next;
  }
  const root = random(4) === 0 ? '__type(name: "__Type") { ...C0 }' : '__schema { types { ...C0 } }';
  return `{ ${root} } ${fragments.join(' ')}`;
}

/** A document; one over 4,000 characters is the length rule's to refuse. */
export function randomDocument(seed: number): string {
  const random = generator(seed);
  if (random(3) === 0) return chainDocument(random);
  const fragments: { name: string; on: string; text: string }[] = [];
  // Every alias its own, so selections merged under one parent never conflict.
  let aliases = 0;

  const selections = (type: string, depth: number, lists = 0): string => {
    const fields = Object.entries(FIELDS[type]!).filter(([field]) => lists < 2 || !NESTING_LISTS.has(field));
    const parts: string[] = [];
    const count = 1 + random(type === 'Query' ? 5 : 4);
    for (let i = 0; i < count; i++) {
      const [field, below] = fields[random(fields.length)]!;
      const alias = `a${aliases++}`;
      const nested = lists + (NESTING_LISTS.has(field) ? 1 : 0);
      let part: string;
      if (below === null) part = `${alias}: ${field}`;
      else if (depth >= 6) part = `${alias}: ${field}${ARGUMENTS[field] ?? ''} { __typename }`;
      else {
        // Reuse a fragment on that type (spread again, it multiplies), make one, or write the selection out.
        const reusable = fragments.filter((fragment) => fragment.on === below);
        // The same selection again under more aliases (where the work multiplies), through a fragment so the text stays short.
        const copies = random(3) === 0 ? 2 + random(4) : 1;
        const choice = random(4);
        let inner: string;
        if (choice === 0 && reusable.length > 0) inner = `...${reusable[random(reusable.length)]!.name}`;
        else if (choice === 1 || copies > 1) {
          const name = `F${fragments.length}`;
          fragments.push({ name, on: below, text: '' });
          const fragment = fragments.at(-1)!;
          fragment.text = `fragment ${name} on ${below} { ${selections(below, depth + 1, nested)} }`;
          inner = random(2) === 0 ? `...${name}` : `...${name} ...${name}`;
        } else inner = selections(below, depth + 1, nested);
        part = Array.from({ length: copies }, (_, copy) => `${copy === 0 ? alias : `a${aliases++}`}: ${field}${ARGUMENTS[field] ?? ''} { ${inner} }`).join(' ');
      }
      parts.push(random(5) === 0 ? `... on ${type} { ${part} }` : part);
    }
    return parts.join(' ');
  };

  return `{ ${selections('Query', 0)} } ${fragments.map((fragment) => fragment.text).join(' ')}`;
}
