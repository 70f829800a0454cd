import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../builder.ts';

/**
 * Applies the GraphQL thread's validation of a long document (the endpoint
 * asks for it before Yoga starts): its errors become the document's, with
 * their places in this document's text; a document it found valid is not
 * validated again here by GraphQL's rules. Our own rules still run after it
 * (rules-after-validation.ts): they count, and cost little.
 */
export const validationOffThread: Plugin<GraphQLContext> = {
  onValidate({ context, params, setResult, setValidationFn }) {
    const verdict = context.validated;
    if (!verdict?.parsed) return;
    if (verdict.errors.length === 0) {
      setValidationFn(() => []);
      return;
    }
    const source = params.documentAST.loc?.source;
    setResult(verdict.errors.map((error) => new GraphQLError(error.message, { ...(source ? { source } : {}), positions: error.positions })));
  },
};
