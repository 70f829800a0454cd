import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link in README.md and docs/ opens something: the file or
 * folder exists, and a `#fragment` into a Markdown file names one of its
 * headings. Documents move between rooms; a link left behind fails here.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const markdownFiles = (): string[] => [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];

/** Fenced blocks and code spans hold examples, not links. */
const withoutCode = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

const linkTargets = (markdown: string): string[] =>
  [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);

const isRelative = (target: string): boolean => !/^[a-z][a-z0-9+.-]*:/i.test(target);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of withoutCode(markdown.replace(/`/g, '')).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = text!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** What is wrong with one link from `file`, or undefined when it opens. */
function brokenLink(file: string, target: string, readMarkdown: (path: string) => string): string | undefined {
  const [path, fragment] = target.split('#') as [string, string | undefined];
  const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
  if (path !== '' && !existsSync(resolved)) return `${target}: no such file`;
  if (fragment === undefined || !resolved.endsWith('.md') || (path !== '' && statSync(resolved).isDirectory())) return undefined;
  return headingAnchors(readMarkdown(resolved)).has(fragment) ? undefined : `${target}: no heading with that anchor`;
}

function brokenLinks(files: string[], readMarkdown: (path: string) => string): string[] {
  return files.flatMap((file) =>
    linkTargets(readMarkdown(file))
      .filter(isRelative)
      .map((target) => brokenLink(file, target, readMarkdown))
      .filter((problem): problem is string => problem !== undefined)
      .map((problem) => `${relative(ROOT, file)}: ${problem}`),
  );
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

describe('relative links in README.md and docs/', () => {
  it('all open a file that exists, at a heading that exists', () => {
    expect(brokenLinks(markdownFiles(), readUtf8)).toEqual([]);
  });

  it('are checked: a missing file and a missing heading are reported, links in code are not', () => {
    const page = join(ROOT, 'docs', 'page-under-test.md');
    const text = [
      '# A page',
      '## Through a pooler (PgBouncer)',
      '[fine](DEPLOY.md) [here](#through-a-pooler-pgbouncer) [gone](no-such-file.md) [nowhere](#no-such-heading)',
      '[outside](https://example.com/missing.md) `[in code](missing-too.md)`',
      '```',
      '[in a block](missing-as-well.md)',
      '```',
    ].join('\n');
    const read = (path: string) => (path === page ? text : readUtf8(path));
    expect(brokenLinks([page], read)).toEqual([
      'docs/page-under-test.md: no-such-file.md: no such file',
      'docs/page-under-test.md: #no-such-heading: no heading with that anchor',
    ]);
  });
});
