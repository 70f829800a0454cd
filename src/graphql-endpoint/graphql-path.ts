/** Where GraphQL is served; apart from the endpoint, so that routing does not load GraphQL's modules. */
export const GRAPHQL_PATH = '/api/graphql';
