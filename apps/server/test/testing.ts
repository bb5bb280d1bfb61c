// Helpers other workspace packages' tests use (e2e, bench, the lab's integration tests): `@rtcscope/server/testing`.
export { api, apiSend, eventually, handshake, ingestSocket, send, type TestServer, startTestServer } from './harness.js';
export { healthWhile } from './health-probe.js';
export { linkToken, MailReceiver } from './mail-receiver.js';
export { freePort } from './ports.js';
export { type NodeProcess, startNodeProcess, startServerProcess, type ServerProcess } from './server-process.js';
export { type ImportBomb, importBombs } from './bombs.js';
export { rtcstatsDump, type SyntheticRecording, webrtcInternalsDump } from './recordings.js';
export { verifyDelivery, WebhookReceiver } from './webhook-receiver.js';
export { localTurnSecret } from '../src/precall/local-turn.js';
