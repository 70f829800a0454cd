import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { jsonBody, request } from './http.ts';

/** Every game of docs/spec/SPEC.md's table, so a run's scores are spread over their boards (100 are kept per game). */
const GAMES = ['toppler', 'marble', 'stacker', 'runner', 'demo'] as const;

export type OperationKind = 'read' | 'task' | 'score';

export interface Outcome {
  kind: OperationKind;
  /** The method and URL the request went to: which instance, which route. */
  target: string;
  /** The HTTP status, or 0 when no answer came (the connection failed, or the client gave up at its deadline). */
  status: number;
  retryAfter: string | null;
  /** Milliseconds from sending to the whole answer read. */
  elapsedMs: number;
  /** The created task's or score's id, for a write answered 201. */
  id?: string;
  /** Why no answer came. */
  failure?: string;
}

export interface Mix {
  /** The instance to send the next request to (round-robin over the cluster). */
  next(): string;
  /** A client that waits longer than this gives up (status 0): a hang shows up as a failure, not as a stuck test. */
  deadlineMs: number;
}

let serial = 0;

/** One request of the given kind: a task created, a score submitted, or one of three reads. */
async function sendOperation(kind: OperationKind, mix: Mix, knownTaskIds: readonly string[]): Promise<Outcome> {
  const index = serial++;
  const url = mix.next();
  const signal = AbortSignal.timeout(mix.deadlineMs);
  const known = knownTaskIds[index % Math.max(knownTaskIds.length, 1)];
  const path =
    kind === 'task' || kind === 'score'
      ? `/api/${kind}s`
      : index % 3 === 0 && known
        ? `/api/tasks/${known}`
        : index % 3 === 1
          ? `/api/scores?game=${GAMES[index % GAMES.length]}`
          : '/api/tasks?limit=10';
  const target = `${kind === 'read' ? 'GET' : 'POST'} ${url}${path}`;
  const started = performance.now();
  try {
    const response = await (() => {
      if (kind === 'task') return request<{ id: string }>(`${url}${path}`, { method: 'POST', signal, ...jsonBody({ title: `load ${index}` }) });
      if (kind === 'score') {
        const game = GAMES[index % GAMES.length]!;
        return request<{ id: string }>(`${url}${path}`, {
          method: 'POST',
          signal,
          ...jsonBody({ game, initials: 'LDT', value: 1 + (index % 400) }, { 'Idempotency-Key': randomUUID() }),
        });
      }
      return request<{ id: string }>(`${url}${path}`, { signal });
    })();
    return {
      kind,
      target,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      elapsedMs: performance.now() - started,
      ...(kind !== 'read' && response.status === 201 ? { id: response.body.id } : {}),
    };
  } catch (error) {
    return { kind, target, status: 0, retryAfter: null, elapsedMs: performance.now() - started, failure: (error as Error).message };
  }
}

/**
 * `concurrency` clients, each sending the next operation `nextKind` names as
 * soon as its previous one is answered, until it names none. Resolves with
 * every outcome, in completion order; `onOutcome` sees each as it comes.
 */
export async function runMixedLoad(
  mix: Mix,
  concurrency: number,
  nextKind: (completed: number) => OperationKind | undefined,
  onOutcome: (outcome: Outcome, completed: number) => void = () => {},
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const taskIds: string[] = [];
  const client = async () => {
    for (let kind = nextKind(outcomes.length); kind !== undefined; kind = nextKind(outcomes.length)) {
      const outcome = await sendOperation(kind, mix, taskIds);
      outcomes.push(outcome);
      if (outcome.kind === 'task' && outcome.id) taskIds.push(outcome.id);
      onOutcome(outcome, outcomes.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return outcomes;
}

/** A plan of exactly `counts` operations, shuffled so reads and both kinds of writes interleave. */
export function shuffledPlan(counts: Record<OperationKind, number>): () => OperationKind | undefined {
  const kinds = (Object.entries(counts) as [OperationKind, number][]).flatMap(([kind, count]) => Array<OperationKind>(count).fill(kind));
  for (let index = kinds.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [kinds[index], kinds[other]] = [kinds[other]!, kinds[index]!];
  }
  return () => kinds.pop();
}

/** Counts outcomes by status, for an assertion message that shows everything at once. */
export function statusCounts(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const label = outcome.status === 0 ? `no answer (${outcome.failure})` : String(outcome.status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}
