import { writeFileSync } from 'node:fs';
import { buildApiDocument } from '../src/http/api-document.ts';

/** Rewrites the committed contracts after a deliberate change of the API: `npm run contracts`. */
const CONTRACT_BASE_URL = 'http://localhost:3000';

const openapi = buildApiDocument(CONTRACT_BASE_URL);
writeFileSync(new URL('../test/contracts/openapi.json', import.meta.url), `${JSON.stringify(openapi, null, 2)}\n`);
