import { randomUUID } from 'node:crypto';

/**
 * Boards where a higher value is better and values up to 1,000,000 are
 * allowed. Each keeps only its best 100 scores (docs/spec/SPEC.md, "Retention"), so a
 * load's scores go to both, and each load's values are above the last's:
 * a later score never trims an earlier one of the same load until a board
 * holds more than 100 of them (see SCORES_CHECKABLE_PER_LOAD).
 */
const SCORE_BOARDS = ['demo', 'runner'] as const;

/** Acknowledged scores of one load that can all still be on their boards afterwards. */
export const SCORES_CHECKABLE_PER_LOAD = 100 * SCORE_BOARDS.length;

/** One write the load sent and what it was answered. */
export interface WriteAnswer {
  kind: 'task' | 'score';
  /** What identifies the write afterwards: the task's title, or the score's value as text. */
  payload: string;
  /** Which instance it was sent to (index into the URLs given). */
  instance: number;
  startedAt: number;
  endedAt: number;
  /** 0 when no HTTP answer came at all (connection error, or the client's own bound ran out). */
  status: number;
  retryAfter: string | null;
  problemType?: string;
  /** The stored row's id, from a 2xx answer. */
  id?: string;
  error?: string;
}

export interface WriteLoad {
  answers: WriteAnswer[];
  /** Stops starting writes and resolves once every write in flight is answered. */
  stop(): Promise<void>;
}

export interface WriteLoadOptions {
  instances: string[];
  clients: number;
  /** Writes each client starts per second, answered or not. */
  perClientPerSecond: number;
  /** Makes this load's payloads distinct from any other's. */
  label: string;
  /** Score values are `valueBase + n`: unique across loads given distinct bases. */
  valueBase: number;
  /** The client's own bound on one request, so a hang is recorded rather than waited out. */
  requestTimeoutMs: number;
}

/**
 * Several clients, each in its own loop, alternating a task creation and a
 * score submission (the service's two kinds of write), spread over the
 * instances. Every write carries a payload no other write has, and every
 * answer is recorded with its timing.
 */
export function startWriteLoad(options: WriteLoadOptions): WriteLoad {
  const answers: WriteAnswer[] = [];
  let stopped = false;
  let sequence = 0;
  const interval = 1000 / options.perClientPerSecond;

  const send = async (client: number, turn: number): Promise<WriteAnswer> => {
    const instance = (client + turn) % options.instances.length;
    const base = options.instances[instance]!;
    const n = sequence++;
    const kind = turn % 2 === 0 ? 'task' : 'score';
    const payload = kind === 'task' ? `${options.label}-${n}` : String(options.valueBase + n);
    const body = kind === 'task' ? { title: payload } : { game: SCORE_BOARDS[n % SCORE_BOARDS.length], initials: 'HAF', value: options.valueBase + n };
    const startedAt = Date.now();
    try {
      const response = await fetch(`${base}/api/${kind === 'task' ? 'tasks' : 'scores'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID() },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      const text = await response.text();
      const parsed = (text.startsWith('{') ? JSON.parse(text) : {}) as { id?: string; type?: string };
      return {
        kind,
        payload,
        instance,
        startedAt,
        endedAt: Date.now(),
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        problemType: response.ok ? undefined : parsed.type,
        id: response.ok ? parsed.id : undefined,
      };
    } catch (error) {
      return { kind, payload, instance, startedAt, endedAt: Date.now(), status: 0, retryAfter: null, error: String(error) };
    }
  };

  const inFlight = new Set<Promise<void>>();
  const clientLoop = async (client: number) => {
    // Clients start spread over one interval, not all at once.
    await new Promise((resolve) => setTimeout(resolve, (client * interval) / options.clients));
    const started = Date.now();
    // Open loop, as independent users: a write starts every interval whether
    // or not the previous one has been answered, so a stalled database sees
    // the requests pile up as it would in production.
    for (let turn = 0; !stopped; turn++) {
      const write = send(client, turn).then((answer) => {
        answers.push(answer);
        inFlight.delete(write);
      });
      inFlight.add(write);
      const wait = started + (turn + 1) * interval - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };

  const loops = Array.from({ length: options.clients }, (_, client) => clientLoop(client));
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      await Promise.all([...inFlight]);
    },
  };
}
