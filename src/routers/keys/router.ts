import { router } from '../../procedures/trpc.ts';
import { createKeyProcedure } from './create-key.ts';
import { revokeKeyProcedure } from './revoke-key.ts';

export const keysRouter = router({ create: createKeyProcedure, revoke: revokeKeyProcedure });
