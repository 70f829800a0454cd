import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { depthLimit } from '../src/graphql/depth-limit.ts';
import { widthLimit } from '../src/graphql/width-limit.ts';

/**
 * The depth and width rules on a schema deep enough to need them. Our own
 * schema's deepest valid query has depth 3, and the rules run only on valid
 * documents (docs/spec/SPEC.md step 6 before 7), so over HTTP they can never fire on depth:
 * they guard the schema's growth, and are tested here on a schema that grew.
 */
const schema = buildSchema(`
  type Node { id: ID, child: Node }
  type Query { node: Node, ${Array.from({ length: 25 }, (_, i) => `f${i}: Int`).join(', ')} }
`);

const messagesOf = (query: string) => validate(schema, parse(query), [depthLimit(), widthLimit()]).map((error) => error.message);
const depthMessage = (depth: number) => `The query has a nesting depth of ${depth}, above the limit of 5.`;

describe('the depth rule', () => {
  it('allows 5 levels and refuses 6, naming the depth and the limit', () => {
    expect(messagesOf('{ node { child { child { child { id } } } } }')).toEqual([]);
    expect(messagesOf('{ node { child { child { child { child { id } } } } } }')).toEqual([depthMessage(6)]);
  });

  it('follows fragment spreads and inline fragments, which add no depth of their own', () => {
    const query = `
      fragment Deep on Node { child { ... on Node { child { child { id } } } } }
      { node { ... on Node { child { ...Deep } } } }`;
    expect(messagesOf(query)).toEqual([depthMessage(6)]);
  });

  it('does not count introspection fields or what lies beneath them', () => {
    expect(messagesOf('{ __schema { types { fields { type { ofType { ofType { name } } } } } } node { __typename child { id } } }')).toEqual([]);
  });

  it('is not fooled by a fragment cycle (validation reports it; the rule ends)', () => {
    const errors = validate(schema, parse('fragment A on Node { child { ...B } } fragment B on Node { child { ...A } } { node { ...A } }'), [depthLimit()]);
    expect(errors).toEqual([]);
  });
});

describe('the width rule', () => {
  const fields = (count: number) => Array.from({ length: count }, (_, i) => `f${i}`).join(' ');

  it('allows 20 top-level fields and refuses 21, naming the count and the limit', () => {
    expect(messagesOf(`{ ${fields(20)} }`)).toEqual([]);
    expect(messagesOf(`{ ${fields(21)} }`)).toEqual(['The operation selects 21 top-level fields, above the limit of 20.']);
  });

  it('counts aliases apart, fields under one response key once, and not introspection', () => {
    expect(messagesOf(`{ ${Array.from({ length: 21 }, (_, i) => `a${i}: f0`).join(' ')} }`)).toHaveLength(1);
    expect(messagesOf(`{ ${fields(20)} f0 f1 __typename __schema { queryType { name } } }`)).toEqual([]);
  });

  it('counts fields reached through fragments once, however often they are spread', () => {
    expect(messagesOf(`fragment Some on Query { ${fields(15)} } { ...Some ...Some ... on Query { f15 f16 f17 f18 f19 } }`)).toEqual([]);
    expect(messagesOf(`fragment Some on Query { ${fields(15)} } { ...Some ... on Query { f15 f16 f17 f18 f19 f20 } }`)).toHaveLength(1);
  });
});
