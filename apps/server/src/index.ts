export { buildServer, type RtcscopeServer } from './app.js';
export { createProject, type NewProject } from './auth/keys.js';
export { loadConfig, type Config } from './config.js';
export { openDatabase, type Database } from './db/database.js';
export { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
export { Partitions } from './db/partitions.js';
export { compactSamples } from './lifecycle/compaction.js';
export { rollUpEndedCalls } from './lifecycle/rollup.js';
