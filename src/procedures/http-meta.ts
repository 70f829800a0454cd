/**
 * HTTP facts of a REST route that trpc-to-openapi's meta has no place for.
 * The REST adapter acts on them and the OpenAPI document is corrected from
 * them, so both tell the same story.
 */
export interface HttpMeta {
  /** The success status; default 200. A 204 has no body. */
  successStatus?: 200 | 201 | 204;
  /**
   * Send a strong ETag of the response body. On GET also Cache-Control:
   * no-cache and a 304 when If-None-Match matches.
   */
  entityTag?: boolean;
  /** The procedure returns this media type as a string, sent as is instead of JSON. */
  contentType?: string;
  /** Headers sent with the same value on every response of the route, errors included. */
  fixedHeaders?: Record<string, string>;
  /** Headers sent with the same value on the route's successful responses only. */
  successHeaders?: Record<string, string>;
  /** Headers the procedure sets itself, documented in the OpenAPI document. */
  responseHeaders?: Record<
    string,
    {
      description: string;
      required?: boolean;
      /** The only values it takes, when they are few (documented as an enum). */
      values?: readonly string[];
    }
  >;
}
