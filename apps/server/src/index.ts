export { buildServer, type RtcscopeServer } from './app.js';
export { createProject, type NewProject } from './identity/keys/keys.js';
export { loadConfig, type Config } from './config.js';
export { openDatabase, type Database } from './db/database.js';
export { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
export { Partitions } from './samples/partitions.js';
export { compactSamples } from './samples/compaction.js';
export { rollUpEndedCalls } from './samples/rollup.js';
export { rollUpDay } from './insights/day-rollup.js';
