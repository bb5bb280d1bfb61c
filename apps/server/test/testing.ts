// Helpers other workspace packages' tests use (e2e, bench): `@rtcscope/server/testing`.
export { freePort } from './ports.js';
export { startServerProcess, type ServerProcess } from './server-process.js';
