import { defineConfig } from 'drizzle-kit';

// `npm run db:migrate` targets DATABASE_URL when set, else the embedded database
// in PGLITE_DATA_DIR — the same choice the service makes at start-up.
const databaseUrl = process.env.DATABASE_URL;

export default databaseUrl
  ? defineConfig({
      dialect: 'postgresql',
      schema: './src/db/schema/index.ts',
      out: './src/db/migrations',
      dbCredentials: { url: databaseUrl },
    })
  : defineConfig({
      dialect: 'postgresql',
      driver: 'pglite',
      schema: './src/db/schema/index.ts',
      out: './src/db/migrations',
      dbCredentials: { url: process.env.PGLITE_DATA_DIR ?? '.data/pglite' },
    });
