export * from './api-keys.ts';
export * from './events.ts';
export * from './idempotency-records.ts';
export * from './rate-limit-windows.ts';
export * from './scores.ts';
export * from './tasks.ts';
export * from './webhooks.ts';
