import { rowsOf } from '../../db/rows.ts';
import { randomUUID } from 'node:crypto';
import { and, eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { idempotencyRecords } from '../../db/schema/index.ts';
import { compiledStatement } from '../../db/compiled-statement.ts';
import { AppError } from '../../errors/app-error.ts';
import type { ServiceContext, TransactionContext } from '../service-context.ts';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/**
 * SPEC: a completed record is kept 24 hours. An unfinished first attempt frees
 * its key after 60 seconds: `settings.idempotency.inProgressMs`, configurable
 * so that a test can watch a killed instance's key come free.
 */
const COMPLETED_TTL_MS = 24 * 60 * 60 * 1000;
const SWEEP_BATCH = 100;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type ClaimOutcome = { kind: 'claimed'; claim: string } | { kind: 'replay'; response: StoredResponse };

/** The claim statement's one row: our claim if it was taken, else the record that refused it. */
interface ClaimRow {
  claimed: string | null;
  fingerprint: string | null;
  state: 'in_progress' | 'completed' | null;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/** One round trip: the claim, and — when it is refused — the record that refused it. */
const CLAIM_KEY = compiledStatement<ClaimRow>(() => {
  const t = idempotencyRecords;
  const value = (name: string) => sql.placeholder(name);
  // Both parts of the statement read the same snapshot, so `existing` is the record as it stood before.
  return sql`
    with claimed as (
      insert into ${t} (client, key, claim, fingerprint, state, started_at)
      values (${value('client')}, ${value('key')}, ${value('claim')}, ${value('fingerprint')}, 'in_progress', ${value('startedAt')}::timestamptz)
      on conflict (client, key) do update set
        claim = excluded.claim, fingerprint = excluded.fingerprint, state = 'in_progress', started_at = excluded.started_at,
        completed_at = null, response_status = null, response_headers = null, response_body = null
      where ${isExpired({ inProgress: value('staleInProgress'), completed: value('staleCompleted') })}
      returning claim
    )
    select claimed.claim::text as claimed, existing.fingerprint, existing.state,
           existing.response_status, existing.response_headers, existing.response_body
    from (select 1) as one
    left join claimed on true
    left join ${t} as existing
      on existing.client = ${value('client')} and existing.key = ${value('key')} and claimed.claim is null`;
});

/**
 * Claims an Idempotency-Key for this attempt in ONE statement, committed on
 * its own so concurrent attempts see it: a new key, an unfinished attempt
 * older than 60 seconds or a completed record older than 24 hours is taken
 * over; anything else answers 409, 422 or a replay — read by the same
 * statement, so a replay costs one round trip.
 */
export async function claimIdempotencyKey({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { client: string; key: string; fingerprint: string };
}): Promise<ClaimOutcome> {
  // Refused by a record our statement could not see (written by an attempt that committed after the
  // statement's snapshot was taken, or released meanwhile): claim again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.clock.now();
    const claim = randomUUID();
    const stale = {
      inProgress: isoTimestampOf(new Date(now.getTime() - ctx.settings.idempotency.inProgressMs)),
      completed: isoTimestampOf(new Date(now.getTime() - COMPLETED_TTL_MS)),
    };
    // One round trip: the claim, and — when it is refused — the record that refused it. Both parts
    // of the statement read the same snapshot, so `existing` is the record as it stood before.
    const [row] = await CLAIM_KEY.run(ctx.db, {
      client: input.client,
      key: input.key,
      claim,
      fingerprint: input.fingerprint,
      startedAt: isoTimestampOf(now),
      staleInProgress: stale.inProgress,
      staleCompleted: stale.completed,
    });
    if (row?.claimed === claim) {
      if (ctx.housekeeping.due('idempotency-records', now.getTime())) await sweepExpiredRecords(ctx, stale);
      return { kind: 'claimed', claim };
    }

    const existing = row?.state ? row : undefined;
    if (!existing) continue;
    if (existing.fingerprint !== input.fingerprint) {
      throw new AppError('idempotency-key-reused', {
        detail: 'This Idempotency-Key was already used with a different request; use a new key for a new request.',
      });
    }
    if (existing.state === 'in_progress') {
      throw new AppError('request-in-progress', {
        detail: 'The first request with this Idempotency-Key is still running; retry in a moment.',
      });
    }
    return {
      kind: 'replay',
      response: { status: existing.response_status!, headers: existing.response_headers ?? {}, body: existing.response_body ?? '' },
    };
  }
  throw new AppError('request-in-progress', {
    detail: 'The request with this Idempotency-Key keeps changing state; retry in a moment.',
  });
}

/**
 * The SQLSTATE of the completion's refusal: a division by zero, which the
 * statement makes itself when it found no record with its claim to complete.
 */
const CLAIM_TAKEN_OVER = '22012';

/**
 * Completes the record, or fails when the claim is no longer there: the check
 * is the statement's own (`1 / 0`), because the commit follows it without
 * waiting for its answer (see withTransaction), and a failed statement turns
 * that commit into a rollback.
 */
const COMPLETE_RECORD = compiledStatement<{ completed: number }>(() => {
  const value = (name: string) => sql.placeholder(name);
  return sql`
    with completed as (
      update ${idempotencyRecords}
      set state = 'completed', completed_at = ${value('completedAt')}::timestamptz, response_status = ${value('status')},
          response_headers = ${value('headers')}::text::jsonb, response_body = ${value('body')}
      where client = ${value('client')} and key = ${value('key')} and claim = ${value('claim')}
      returning claim
    )
    select 1 / count(*)::int as completed from completed`;
});

/**
 * Stores the answer to replay, in the transaction that did the work, so the
 * work and its record commit together: sent without waiting for its answer,
 * behind the work's statements (see withTransaction). Fails if the claim was
 * taken over meanwhile (the attempt outlived 60 seconds), which rolls the
 * work back.
 */
export function completeIdempotencyKey({
  ctx: tx,
  input,
}: {
  ctx: TransactionContext;
  input: { client: string; key: string; claim: string; response: StoredResponse };
}): void {
  const completing = COMPLETE_RECORD.run(tx.db, {
    completedAt: isoTimestampOf(tx.clock.now()),
    status: input.response.status,
    headers: JSON.stringify(input.response.headers),
    body: input.response.body,
    client: input.client,
    key: input.key,
    claim: input.claim,
  });
  tx.beforeCommit(
    completing.catch((error: unknown) => {
      if (sqlStateOf(error) !== CLAIM_TAKEN_OVER) throw error;
      throw new AppError('request-in-progress', {
        detail: 'This attempt took too long and another took over its Idempotency-Key; retry in a moment.',
        cause: error,
      });
    }),
  );
}

/** The SQLSTATE of a failed statement (Drizzle wraps the driver's error). */
function sqlStateOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** Forgets an attempt that did not succeed, so the key can be used again (SPEC rule 7). */
export async function releaseIdempotencyKey({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { client: string; key: string; claim: string };
}): Promise<void> {
  await ctx.db
    .delete(idempotencyRecords)
    .where(and(eq(idempotencyRecords.client, input.client), eq(idempotencyRecords.key, input.key), eq(idempotencyRecords.claim, input.claim)));
}

/** A record nobody can use any more: an unfinished attempt past 60 seconds, or a completed one past 24 hours. */
function isExpired(stale: { inProgress: string | Placeholder; completed: string | Placeholder }): SQL {
  const t = idempotencyRecords;
  return sql`((${t.state} = 'in_progress' and ${t.startedAt} <= ${stale.inProgress}::timestamptz)
    or (${t.state} = 'completed' and ${t.completedAt} <= ${stale.completed}::timestamptz))`;
}

/** Now and then a new claim clears a batch of records nobody can use any more. */
async function sweepExpiredRecords(ctx: ServiceContext, stale: { inProgress: string; completed: string }): Promise<void> {
  const removed = await ctx.db.execute(sql`
    delete from ${idempotencyRecords}
    where (${idempotencyRecords.client}, ${idempotencyRecords.key}) in (
      select ${idempotencyRecords.client}, ${idempotencyRecords.key} from ${idempotencyRecords}
      where ${isExpired(stale)}
      limit ${SWEEP_BATCH}
      for update skip locked
    )
    returning 1`);
  ctx.housekeeping.swept('idempotency-records', rowsOf(removed).length, SWEEP_BATCH);
}
