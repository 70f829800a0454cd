import { Worker } from 'node:worker_threads';
import type { IntrospectionQuery } from 'graphql';
import { AppError } from '../../errors/app-error.ts';

/** Jobs waiting for the thread at most; more is a 503, as a full queue is anywhere else. */
const MAX_WAITING = 32;

/** Plain JavaScript beside this file, in src/ and in dist/ alike (the build copies it). */
const WORKER_URL = new URL('./graphql-worker.js', import.meta.url);

/** An introspection-only query, its variables already checked. */
interface IntrospectionJob {
  kind: 'introspect';
  query: string;
  variables: Readonly<Record<string, unknown>> | undefined;
  operationName: string | undefined;
}

/** A document to validate against the schema by GraphQL's own rules. */
interface ValidationJob {
  kind: 'validate';
  query: string;
}

/** What GraphQL's validation found, each error with its places in the document's text. */
export type ValidationVerdict = { parsed: false } | { parsed: true; errors: { message: string; positions: number[] }[] };

type Answer = { id: number; fields: Record<string, string> } | { id: number; verdict: ValidationVerdict } | { id: number; failure: string };

interface Waiting {
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/**
 * One worker thread for GraphQL's synchronous heavy lifting
 * (graphql-worker.js): answering introspection, and validating long
 * documents — graphql-js compares every pair of fields under one response key,
 * so a 4,000-character document of one field repeated costs it a tenth of a
 * second. Started at the first job; if it dies, the jobs waiting for it fail
 * and the next job starts another.
 */
export class GraphQLThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor(
    private readonly introspection: IntrospectionQuery,
    private readonly onStopped: (error: unknown) => void,
  ) {}

  /** The query's data, each top-level field's as JSON text by its response key. */
  async introspect(job: Omit<IntrospectionJob, 'kind'>): Promise<Record<string, string>> {
    const answer = await this.run({ kind: 'introspect', ...job });
    if (!('fields' in answer)) throw new Error('the GraphQL thread answered an introspection with something else');
    return answer.fields;
  }

  /** GraphQL's own validation of the document (or that it does not parse). */
  async validate(query: string): Promise<ValidationVerdict> {
    const answer = await this.run({ kind: 'validate', query });
    if (!('verdict' in answer)) throw new Error('the GraphQL thread answered a validation with something else');
    return answer.verdict;
  }

  /** Ends the thread; jobs still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failWaiting(new AppError('unavailable', { detail: 'The service is shutting down.' }));
    await worker?.terminate();
  }

  private run(job: IntrospectionJob | ValidationJob): Promise<Answer> {
    if (this.waiting.size >= MAX_WAITING) {
      return Promise.reject(new AppError('unavailable', { detail: 'Too many large GraphQL documents and introspection queries at once; try again in a second.', headers: { 'Retry-After': '1' } }));
    }
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_URL, { workerData: this.introspection });
    // Requests keep the process alive, not an idle thread.
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.waiting.get(answer.id);
      if (!waiting) return;
      this.waiting.delete(answer.id);
      if ('failure' in answer) waiting.reject(new Error(`the GraphQL thread failed: ${answer.failure}`));
      else waiting.resolve(answer);
    });
    const stopped = (error: unknown) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failWaiting(error);
      this.onStopped(error);
    };
    worker.on('error', stopped);
    worker.on('exit', (code) => stopped(new Error(`the GraphQL thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failWaiting(error: unknown): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
