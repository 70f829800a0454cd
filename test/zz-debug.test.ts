import { it } from 'vitest';
import { startTestServer } from './support/test-server.ts';
import { createLogger } from '../src/observability/logger.ts';
import { bearer, createKey } from './support/keys-client.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { subscribe } from './support/webhooks-client.ts';
it('debug', async () => {
  const server = await startTestServer({ log: createLogger('warn'), env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' } });
  const r = await startWebhookReceiver();
  const k = bearer((await createKey(server.url, { name: 'x' })).key);
  await subscribe(server.url, k, r.url);
  await new Promise((res) => setTimeout(res, 1500));
  console.log('verifications', r.verifications.length);
  await server.stop(); await r.close();
});
