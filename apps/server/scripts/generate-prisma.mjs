// Generates the Prisma client offline. `prisma generate` insists on locating a native schema engine it
// never uses for generation; where that engine cannot be downloaded we point it at a stand-in.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
const standInDir = env.PRISMA_SCHEMA_ENGINE_BINARY ? null : mkdtempSync(join(tmpdir(), 'rtcscope-prisma-'));
if (standInDir) {
  const standIn = join(standInDir, 'schema-engine');
  writeFileSync(standIn, '#!/bin/sh\necho "rtcscope: the schema engine is not used for generate" >&2\nexit 1\n');
  chmodSync(standIn, 0o755);
  env.PRISMA_SCHEMA_ENGINE_BINARY = standIn;
}
try {
  execFileSync('pnpm', ['exec', 'prisma', 'generate'], { stdio: 'inherit', env });
} finally {
  if (standInDir) rmSync(standInDir, { recursive: true, force: true });
}
