import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI where its schema engine can be downloaded; rtcscope itself applies the SQL
// migrations with its own runner (src/db/migrate.ts), see docs/operations.md "Database migrations offline".
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/rtcscope' },
});
