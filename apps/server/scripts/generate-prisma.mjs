// Generates the Prisma client offline. `prisma generate` insists on locating a native schema engine it
// never uses for generation; where that engine cannot be downloaded we point it at a stand-in.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const standIn = join(mkdtempSync(join(tmpdir(), 'rtcscope-prisma-')), 'schema-engine');
  writeFileSync(standIn, '#!/bin/sh\necho "rtcscope: the schema engine is not used for generate" >&2\nexit 1\n');
  chmodSync(standIn, 0o755);
  env.PRISMA_SCHEMA_ENGINE_BINARY = standIn;
}
execFileSync('pnpm', ['exec', 'prisma', 'generate'], { stdio: 'inherit', env });
