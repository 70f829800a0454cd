import { randomUUID } from 'node:crypto';
import { request, type JsonResponse } from './http.ts';

export interface Score {
  id: string;
  game: string;
  initials: string;
  value: number;
  rank: number;
  createdAt: string;
}

export interface Leaderboard {
  game: string;
  name: string;
  unit: string;
  better: 'higher' | 'lower';
  entries: { rank: number; id: string; initials: string; value: number; createdAt: string }[];
}

/** POSTs a score with a fresh Idempotency-Key unless one is given. */
export function postScore(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<JsonResponse<Score>> {
  return request<Score>(`${url}/api/scores`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'Idempotency-Key': randomUUID(), ...headers },
  });
}

export async function submitScore(url: string, body: Record<string, unknown>): Promise<Score> {
  const response = await postScore(url, body);
  if (response.status !== 201) throw new Error(`score failed: ${response.status} ${response.text}`);
  return response.body;
}
