import { validate, type DocumentNode, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';
import { costLimit } from './cost-limit.ts';
import { depthLimit } from './depth-limit.ts';
import { resolvedFieldsLimit } from './resolved-fields-limit.ts';
import { widthLimit } from './width-limit.ts';

/**
 * Our own rules' verdict per document. Yoga parses a query text once and
 * hands the same document back for it, and the schema never changes, so the
 * verdict holds as long as the document lives (as Yoga's own validation cache
 * does for GraphQL's rules).
 */
const verdicts = new WeakMap<DocumentNode, readonly GraphQLError[]>();

/**
 * Our own rules — the depth of docs/spec/SPEC.md step 7, the width and the cost of docs/spec/DECISIONS.md, and
 * the fields the data side could resolve — run
 * only on a document that passed GraphQL's validation (step 6), so a
 * document with an unknown field gets those errors alone.
 */
export const rulesAfterValidation: Plugin<GraphQLContext> = {
  onValidate({ params }) {
    return ({ valid, setResult }) => {
      if (!valid) return;
      let errors = verdicts.get(params.documentAST);
      if (!errors) {
        errors = markedAsValidation(validate(params.schema, params.documentAST, [depthLimit(), widthLimit(), costLimit(), resolvedFieldsLimit()]));
        verdicts.set(params.documentAST, errors);
      }
      if (errors.length > 0) setResult([...errors]);
    };
  },
};

/** Marked as Yoga marks GraphQL's own validation errors: a 400. */
export function markedAsValidation(errors: readonly GraphQLError[]): GraphQLError[] {
  for (const error of errors) Object.assign(error.extensions, { code: 'GRAPHQL_VALIDATION_FAILED', http: { spec: true, status: 400 } });
  return [...errors];
}
