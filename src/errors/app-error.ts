import { problemTypes, type ProblemSlug } from './problem-types.ts';

/** One entry of a validation problem's `errors` array. */
export interface FieldError {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  detail?: string;
  errors?: FieldError[];
  /** Headers that belong to this failure (Retry-After, WWW-Authenticate, …). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type of the domain. Services throw it; `toAppError` turns
 * anything else thrown into one, and one renderer per transport writes it as
 * problem+json, tRPC's envelope or a GraphQL error.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly title: string;
  readonly detail: string | undefined;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(slug: ProblemSlug, options: AppErrorOptions = {}) {
    super(options.detail ?? problemTypes[slug].title, { cause: options.cause });
    this.slug = slug;
    this.status = problemTypes[slug].status;
    this.title = problemTypes[slug].title;
    this.detail = options.detail;
    this.errors = options.errors;
    const { retryAfter } = problemTypes[slug] as { retryAfter?: number };
    this.headers = retryAfter === undefined ? (options.headers ?? {}) : { 'Retry-After': String(retryAfter), ...options.headers };
  }
}

