/** Where the API answers: the page's `lab-api-base` meta, or the page's own origin when it is empty. */
export function apiBase(): string {
  const configured = document.querySelector<HTMLMetaElement>('meta[name="lab-api-base"]')?.content.trim() ?? '';
  return configured.replace(/\/+$/, '');
}

/** Links to the API's own pages (/docs, /graphiql, /versioning) point at the API, wherever this page is served. */
export function pointLinksAt(base: string): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-api-link]')) {
    link.href = `${base}${link.getAttribute('href') ?? '/'}`;
  }
}
