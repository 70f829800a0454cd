import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '../../src/client/app-router.ts';

/** The typed client a TypeScript frontend would use, with the batch link. */
export function trpcClient(url: string) {
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${url}/api/trpc` })] });
}

export type TrpcClient = ReturnType<typeof trpcClient>;
