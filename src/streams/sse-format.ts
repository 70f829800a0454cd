/**
 * Server-Sent Events framing (WHATWG HTML §9.2), written out by hand because
 * docs/spec/SPEC.md fixes the exact lines (`event: board`, `retry: 3000`, `: keep-alive`)
 * and the libraries we tried write `field:value` without the space.
 */
export function sseMessage(message: { event?: string; id?: number; retry?: number; data?: string }): string {
  let text = '';
  if (message.event !== undefined) text += `event: ${message.event}\n`;
  if (message.id !== undefined) text += `id: ${message.id}\n`;
  if (message.retry !== undefined) text += `retry: ${message.retry}\n`;
  if (message.data !== undefined) for (const line of message.data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}

export function sseComment(text: string): string {
  return `: ${text}\n\n`;
}
