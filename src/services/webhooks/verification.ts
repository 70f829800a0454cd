import { randomBytes } from 'node:crypto';
import { isoTimestampOf } from '../../lib/iso-timestamp.ts';

/** The type of a subscription's verification request (DECISIONS "Webhook endpoint verification"). */
export const VERIFICATION_TYPE = 'webhook.verification';

/** Retries of a verification request: the first three steps of the retry schedule, then the subscription has failed. */
export const VERIFICATION_RETRIES = 3;

/**
 * The verification request's body: a Standard Webhooks message whose data
 * is a fresh random challenge. Stored as the delivery's payload, so every
 * attempt sends the same challenge and the answer is checked against it.
 */
export function verificationPayload(now: Date): string {
  return JSON.stringify({ type: VERIFICATION_TYPE, timestamp: isoTimestampOf(now), data: { challenge: randomBytes(32).toString('base64url') } });
}

/**
 * Whether a receiver's answer proves it wants the deliveries, as Twitch
 * EventSub and Slack ask: a 2xx whose whole body, surrounding whitespace
 * aside, is the challenge.
 */
export function echoesChallenge(payload: string, status: number | null, body: string | undefined): boolean {
  if (status === null || status < 200 || status >= 300 || body === undefined) return false;
  const { data } = JSON.parse(payload) as { data: { challenge: string } };
  return body.trim() === data.challenge;
}
