import { initTRPC } from '@trpc/server';
import type { Context } from './context.ts';
import type { Meta } from './meta.ts';
import { procedureChain } from './procedure-chain.ts';
import { formatTrpcError } from './trpc-error.ts';

const t = initTRPC.context<Context>().meta<Meta>().create({ isDev: false, errorFormatter: formatTrpcError });

export const router = t.router;

/** The base of every procedure: see procedure-chain.ts for the order of checks. */
export const publicProcedure = t.procedure.use(procedureChain);
