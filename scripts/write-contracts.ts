import { writeFileSync } from 'node:fs';
import { printedSchema } from '../src/graphql/schema.ts';
import { buildApiDocument } from '../src/openapi/api-document.ts';
import { appRouter } from '../src/routers/app-router.ts';

/** Rewrites the committed contracts after a deliberate change of the API: `npm run contracts`. */
const CONTRACT_BASE_URL = 'http://localhost:3000';

const contracts = new URL('../test/contracts/', import.meta.url);
writeFileSync(new URL('openapi.json', contracts), `${JSON.stringify(buildApiDocument(appRouter, CONTRACT_BASE_URL), null, 2)}\n`);
writeFileSync(new URL('schema.graphql', contracts), printedSchema());
