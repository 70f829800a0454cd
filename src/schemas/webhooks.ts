import { z } from 'zod';
import { EVENT_TYPES } from './event-types.ts';
import { text, timestampSchema, uuidSchema } from './text.ts';

const eventTypeSchema = z.enum(EVENT_TYPES);

export const newSubscriptionSchema = z.strictObject({
  url: text({ error: 'Give the URL to deliver to' })
    .max(2000, 'Keep the URL under 2000 characters')
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, 'Use an absolute http or https URL')
    .meta({ description: 'An http(s) URL of at most 2000 characters whose host is a public unicast address (no loopback, private, link-local, reserved, documentation or IPv4-embedding ranges)' }),
  events: z
    .array(eventTypeSchema)
    .min(1, 'Name at least one event type, or leave events out for all')
    .optional()
    .meta({ description: 'Event types to receive; default all (today only score.submitted)' }),
  description: text().max(500, 'Keep the description under 500 characters').optional(),
});

export const subscriptionSchema = z
  .object({
    id: uuidSchema,
    url: z.string(),
    events: z.array(eventTypeSchema),
    description: z.string().nullable(),
    status: z.enum(['pending', 'active', 'failed', 'disabled']).meta({
      description:
        'pending until the receiver answers the signed webhook.verification request with 2xx and the challenge as its whole body (no event is sent, or queued, before); active then; failed when it never does (the request and three retries); disabled once the key is gone or the receiver answers 410 Gone',
    }),
    createdAt: timestampSchema,
  })
  .meta({ id: 'WebhookSubscription' });

export const createdSubscriptionSchema = subscriptionSchema
  .extend({ secret: z.string().meta({ description: 'whsec_…: the signing secret, shown only in this response' }) })
  .meta({ id: 'CreatedWebhookSubscription' });

export const deliverySchema = z
  .object({
    id: uuidSchema.meta({ description: 'Also the webhook-id header of every attempt' }),
    eventId: z.number().int().nullable().meta({ description: 'The event delivered; null for the verification request' }),
    type: z.string().meta({ description: 'The event type, or webhook.verification' }),
    status: z.enum(['pending', 'delivered', 'failed', 'disabled']),
    attempts: z.number().int(),
    lastResponseStatus: z.number().int().nullable(),
    nextAttemptAt: timestampSchema.nullable(),
    createdAt: timestampSchema,
  })
  .meta({ id: 'WebhookDelivery' });

export const subscriptionIdInputSchema = z.strictObject({ id: uuidSchema });
