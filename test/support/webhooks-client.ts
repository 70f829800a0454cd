import { expect, vi } from 'vitest';
import { jsonBody, request } from './http.ts';

/** A subscription as POST /api/webhooks answers it (with its secret) or GET shows it. */
export interface Subscription {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'pending' | 'active' | 'failed' | 'disabled';
  createdAt: string;
  secret: string;
}

/** Deliveries settle within a few polls; the bound only guards against a hang on a loaded machine. */
export const SETTLED = { timeout: 10_000, interval: 50 };

/** POST /api/webhooks, which must answer 201 with a pending subscription. */
export async function subscribe(base: string, headers: Record<string, string>, url: string, extra: Record<string, unknown> = {}): Promise<Subscription> {
  const response = await request<Subscription>(`${base}/api/webhooks`, { method: 'POST', ...jsonBody({ url, ...extra }, headers) });
  if (response.status !== 201) throw new Error(`subscribe failed: ${response.status} ${response.text}`);
  return response.body;
}

/** The subscription as GET /api/webhooks/{id} shows it now. */
export async function subscriptionStatus(base: string, headers: Record<string, string>, id: string): Promise<string> {
  return (await request<Subscription>(`${base}/api/webhooks/${id}`, { headers })).body.status;
}

/** Subscribes a receiver that echoes its challenge, and waits until the subscription is active: events reach only active ones. */
export async function subscribeVerified(base: string, headers: Record<string, string>, url: string, extra: Record<string, unknown> = {}): Promise<Subscription> {
  const created = await subscribe(base, headers, url, extra);
  await vi.waitFor(async () => expect(await subscriptionStatus(base, headers, created.id)).toBe('active'), SETTLED);
  return { ...created, status: 'active' };
}
