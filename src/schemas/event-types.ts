/** What a submitted score records in the event log (docs/spec/SPEC.md, "Events"); streams and webhooks follow it. */
export const SCORE_SUBMITTED = 'score.submitted';

/** The event types a webhook subscription can ask for. */
export const EVENT_TYPES = [SCORE_SUBMITTED] as const;
export type EventType = (typeof EVENT_TYPES)[number];
