/**
 * A path or path segment percent-decoded, as the router behind it reads it
 * (`scores%2Elive` is scores.live, `%61bc` is abc); text that does not decode
 * stays as it came, for the router to answer.
 */
export function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
