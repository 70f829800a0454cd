import { hash } from 'node:crypto';

/** A strong entity tag derived from the exact JSON text of a representation (one-shot hashing: no Hash object per tag). */
export function entityTagOf(json: string): string {
  return `"${hash('sha1', json, 'base64url')}"`;
}

export interface EntityTagList {
  any: boolean;
  tags: string[];
}

/**
 * Parses an If-Match / If-None-Match value: a comma-separated list of entity
 * tags, each maybe marked weak (`W/`), or `*`. Weak markers are dropped: docs/spec/SPEC.md
 * compares both headers by the tag's opaque value.
 */
export function parseEntityTagList(header: string | undefined): EntityTagList {
  const list: EntityTagList = { any: false, tags: [] };
  if (header === undefined) return list;
  for (const raw of header.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    if (item === '*') list.any = true;
    else list.tags.push(item.startsWith('W/') ? item.slice(2) : item);
  }
  return list;
}

export function isEmptyList(list: EntityTagList): boolean {
  return !list.any && list.tags.length === 0;
}

export function listMatches(list: EntityTagList, tag: string): boolean {
  return list.any || list.tags.includes(tag);
}
