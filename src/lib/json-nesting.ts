/** docs/spec/DECISIONS.md, "Deep JSON": a body nested deeper than this many arrays and objects is refused before it is used. */
const MAX_JSON_NESTING = 64;

/** What a client is told when its JSON nests too deep, on every transport. */
export const TOO_DEEP_DETAIL = `The input nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read in one
 * pass without parsing (brackets inside strings are text). JSON.parse copes
 * with any depth, but JSON.stringify and every other recursive walk of the
 * parsed value overflow the stack a few thousand levels down.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (OPENERS.has(code)) {
      if (++depth > limit) return true;
    } else if (CLOSERS.has(code)) {
      depth--;
    }
  }
  return false;
}
