export * from './api-keys.ts';
export * from './rate-limit-windows.ts';
export * from './tasks.ts';
