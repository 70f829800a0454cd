import type {
  inferRouterInputs,
  inferRouterOutputs,
  TRPC_ERROR_CODE_KEY,
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCSubscriptionProcedure,
} from '@trpc/server';
import type { appRouter } from '../routers/app-router.ts';

/** tRPC's error envelope as our errorFormatter shapes it: an input error lists its issues. */
type ErrorShape = {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: {
    code: TRPC_ERROR_CODE_KEY;
    httpStatus: number;
    path?: string;
    issues: { path: string; message: string }[] | undefined;
  };
};

/** What a client knows of the server: no context (services, database), no transport meta. */
type Root = { ctx: object; meta: object; errorShape: ErrorShape; transformer: false };

/**
 * The router as a client sees it: every procedure with its input and output,
 * nothing else. The mapping is written inline, two levels deep (namespace →
 * procedure), on purpose: declaration emit then prints the result as plain
 * object types, where a named helper type would be printed by name with the
 * server's router as its argument, and bring the server's types with it.
 */
function clientViewOf<R extends { _def: { record: object } }>(router: R) {
  return router as unknown as TRPCBuiltRouter<
    Root,
    {
      [N in keyof R['_def']['record']]: {
        [P in keyof R['_def']['record'][N]]: R['_def']['record'][N][P] extends TRPCQueryProcedure<infer D>
          ? TRPCQueryProcedure<{ input: D['input']; output: D['output']; meta: object; errorShape: ErrorShape }>
          : R['_def']['record'][N][P] extends TRPCMutationProcedure<infer D>
            ? TRPCMutationProcedure<{ input: D['input']; output: D['output']; meta: object; errorShape: ErrorShape }>
            : R['_def']['record'][N][P] extends TRPCSubscriptionProcedure<infer D>
              ? TRPCSubscriptionProcedure<{ input: D['input']; output: D['output']; meta: object; errorShape: ErrorShape }>
              : never;
      };
    }
  >;
}

// Only its type is used: the server's router is imported as a type, so this module loads nothing.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const clientView = clientViewOf(undefined as unknown as typeof appRouter);

/**
 * The router type for typed clients: `import type { AppRouter } from 'lab-api/router'`.
 * Its declaration file names only `@trpc/server`'s types.
 */
export type AppRouter = typeof clientView;

/** Every procedure's input and output, e.g. `RouterOutputs['scores']['top']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
// The client's view agrees with the server's router, procedure by procedure: typecheck fails otherwise.
type _InputsAgree = Holds<Same<RouterInputs, inferRouterInputs<typeof appRouter>>>;
type _OutputsAgree = Holds<Same<RouterOutputs, inferRouterOutputs<typeof appRouter>>>;
