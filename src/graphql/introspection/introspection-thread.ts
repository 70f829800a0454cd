import { Worker } from 'node:worker_threads';
import type { IntrospectionQuery } from 'graphql';
import { AppError } from '../../errors/app-error.ts';

/** Queries waiting for the thread at most; more is a 503, as a full queue is anywhere else. */
const MAX_WAITING = 32;

/** Plain JavaScript beside this file, in src/ and in dist/ alike (the build copies it). */
const WORKER_URL = new URL('./introspection-worker.js', import.meta.url);

/** One introspection-only query for the thread, its variables already checked. */
interface IntrospectionJob {
  id: number;
  query: string;
  variables: Readonly<Record<string, unknown>> | undefined;
  operationName: string | undefined;
}

/** Each top-level field's data as JSON text, by response key; or why it could not be had. */
type IntrospectionAnswer = { id: number; fields: Record<string, string> } | { id: number; failure: string };

interface Waiting {
  resolve: (fields: Record<string, string>) => void;
  reject: (error: unknown) => void;
}

/**
 * One worker thread that answers introspection (introspection-worker.js),
 * started at the first query that needs it. If it dies, the queries waiting
 * for it fail and the next query starts another.
 */
export class IntrospectionThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor(
    private readonly introspection: IntrospectionQuery,
    private readonly onStopped: (error: unknown) => void,
  ) {}

  /** The query's data, each top-level field's as JSON text by its response key. */
  run(job: Omit<IntrospectionJob, 'id'>): Promise<Record<string, string>> {
    if (this.waiting.size >= MAX_WAITING) {
      return Promise.reject(new AppError('unavailable', { detail: 'Too many introspection queries at once; try again in a second.', headers: { 'Retry-After': '1' } }));
    }
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...job } satisfies IntrospectionJob);
    });
  }

  /** Ends the thread; queries still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failWaiting(new AppError('unavailable', { detail: 'The service is shutting down.' }));
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(WORKER_URL, { workerData: this.introspection });
    // Requests keep the process alive, not an idle thread.
    worker.unref();
    worker.on('message', (answer: IntrospectionAnswer) => {
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      this.waiting.delete(answer.id);
      if ('fields' in answer) waiting.resolve(answer.fields);
      else waiting.reject(new Error(`introspection failed in its thread: ${answer.failure}`));
    });
    const stopped = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failWaiting(error);
      this.onStopped(error);
    };
    worker.on('error', stopped);
    worker.on('exit', (code) => stopped(new Error(`the introspection thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failWaiting(error: unknown): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
