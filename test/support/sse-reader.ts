export interface SseFrame {
  /** The frame's text as sent, without the blank line that ends it. */
  raw: string;
  event?: string;
  id?: string;
  retry?: string;
  data?: string;
  comment?: string;
}

export interface SseReader {
  status: number;
  headers: Headers;
  /** The next frame, or undefined once the server ended the stream. */
  next(): Promise<SseFrame | undefined>;
  /** Once next() has returned undefined: whether the server ended the stream properly (not a reset or abort). */
  readonly endedCleanly: boolean | undefined;
  /** Skips frames until one matches; fails if the stream ends first. */
  nextMatching(predicate: (frame: SseFrame) => boolean): Promise<SseFrame>;
  close(): void;
}

/** A plain fetch-based reader that sees the stream's exact text, frame by frame. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let done = false;
  let endedCleanly: boolean | undefined;

  async function next(): Promise<SseFrame | undefined> {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end !== -1) {
        const raw = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        return parse(raw);
      }
      if (done) return undefined;
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined, failed: true }));
      if (chunk.done) {
        done = true;
        endedCleanly = !('failed' in chunk);
      }
      else buffered += decoder.decode(chunk.value, { stream: true });
    }
  }

  return {
    status: response.status,
    headers: response.headers,
    next,
    get endedCleanly() {
      return endedCleanly;
    },
    async nextMatching(predicate) {
      for (;;) {
        const frame = await next();
        if (!frame) throw new Error('the stream ended before a matching frame arrived');
        if (predicate(frame)) return frame;
      }
    },
    close: () => controller.abort(),
  };
}

function parse(raw: string): SseFrame {
  const frame: SseFrame = { raw };
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) {
      frame.comment = line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === 'event' || field === 'id' || field === 'retry') frame[field] = value;
  }
  return frame;
}
