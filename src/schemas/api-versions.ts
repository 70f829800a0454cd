/** docs/spec/SPEC.md, "Versioning": the task representations `API-Version` selects; the first is the default. */
export const TASK_VERSIONS = ['1', '2'] as const;

/**
 * docs/spec/SPEC.md, "Versioning": the retired version 0 list keeps working and says so in
 * its headers; the policy page quotes the same dates.
 */
export const VERSION_0_HEADERS = {
  // RFC 9745: @ + Unix seconds of 2026-10-01T00:00:00Z.
  Deprecation: `@${Date.UTC(2026, 9, 1) / 1000}`,
  // RFC 8594: the HTTP-date of 2027-06-30T00:00:00Z.
  Sunset: new Date(Date.UTC(2027, 5, 30)).toUTCString(),
  Link: '</api/tasks>; rel="successor-version", </versioning>; rel="deprecation"',
};
