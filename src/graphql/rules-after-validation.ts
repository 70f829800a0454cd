import { validate } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { depthLimit } from './depth-limit.ts';
import { widthLimit } from './width-limit.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * Our own rules — the depth of SPEC step 7 and the width of DECISIONS — run
 * only on a document that passed GraphQL's validation (step 6), so a
 * document with an unknown field gets those errors alone.
 */
export const rulesAfterValidation: Plugin<GraphQLContext> = {
  onValidate({ params }) {
    return ({ valid, setResult }) => {
      if (!valid) return;
      const errors = validate(params.schema, params.documentAST, [depthLimit(), widthLimit()]);
      if (errors.length === 0) return;
      // Marked as Yoga marks GraphQL's own validation errors (its hook has run by now): a 400.
      for (const error of errors) Object.assign(error.extensions, { code: 'GRAPHQL_VALIDATION_FAILED', http: { spec: true, status: 400 } });
      setResult([...errors]);
    };
  },
};
