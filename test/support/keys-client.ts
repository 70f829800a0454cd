import { jsonBody, request } from './http.ts';

export interface CreatedKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
  key: string;
}

export function bearer(credential: string): Record<string, string> {
  return { Authorization: `Bearer ${credential}` };
}

/** Creates a key; `client` sets X-Forwarded-For so servers with TRUST_PROXY count it apart. */
export async function createKey(url: string, body: Record<string, unknown> = { name: 'test key' }, client?: string): Promise<CreatedKey> {
  const response = await request<CreatedKey>(`${url}/api/keys`, {
    method: 'POST',
    ...jsonBody(body, client ? { 'X-Forwarded-For': client } : {}),
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${response.text}`);
  return response.body;
}

export async function exchangeForToken(url: string, key: string): Promise<string> {
  const response = await request<{ access_token: string }>(`${url}/api/token`, { method: 'POST', headers: bearer(key) });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${response.text}`);
  return response.body.access_token;
}
