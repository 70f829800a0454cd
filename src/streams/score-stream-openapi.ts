import { z } from 'zod';
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { leaderboardQuerySchema } from '../schemas/scores.ts';
import { lastEventIdHeaderSchema } from '../schemas/headers.ts';
import { problemSchema } from '../http/problem-schema.ts';

export const SCORE_STREAM_PATH = '/api/scores/stream';

const problem = (description: string, headers?: Record<string, { required: boolean; schema: { type: 'string' }; description: string }>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: problemSchema } },
});

/** The raw SSE route, documented from the same zod schema its handler validates with. */
export const scoreStreamOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'scores-stream',
    summary: 'Live leaderboard updates as Server-Sent Events',
    description: [
      'A new client first gets `event: board` with the current Leaderboard, `id:` the latest event id (0 when none) and `retry: 3000`.',
      'A client sending a valid Last-Event-ID gets `retry: 3000` and then only what came after that id; an id beyond the newest stored event (a restored or reset log) starts over as for a new client.',
      'After each poll that finds score.submitted events for the game, one `event: board` message carries the Leaderboard plus `latest`, the last such event.',
      'A `: keep-alive` comment follows 10 quiet seconds; the stream ends after 25 seconds, or at once when a poll fails (reconnect with Last-Event-ID).',
    ].join(' '),
    tags: ['scores'],
    security: [{}, { bearer: [] }],
    requestParams: {
      query: leaderboardQuerySchema,
      header: lastEventIdHeaderSchema,
    },
    responses: {
      '200': {
        description: 'An event stream of `board` messages',
        content: { 'text/event-stream': { schema: z.string().meta({ description: 'SSE: event: board, id: <event id>, data: <Leaderboard JSON>' }) } },
      },
      '401': problem('Invalid credentials', {
        'WWW-Authenticate': { required: true, schema: { type: 'string' }, description: 'Bearer challenge with error="invalid_token"' },
      }),
      '422': problem('Unknown game or bad limit'),
      '429': problem('This client already holds SSE_MAX_STREAMS_PER_CLIENT open streams (default 100) on this instance', {
        'Retry-After': { required: true, schema: { type: 'string' }, description: 'Always 5' },
      }),
      '500': problem('Unexpected failure'),
      '503': problem('The database cannot be reached right now, so the stream cannot start; a stream already open ends instead', {
        'Retry-After': { required: true, schema: { type: 'string' }, description: 'Always 1' },
      }),
    },
  },
};
