export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch with the body read once: as JSON when there is one, else as text. */
export async function request<T = unknown>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = undefined;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

export function jsonBody(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } };
}
