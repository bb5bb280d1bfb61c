export * from './fields.js';
export * from './messages.js';
export * from './api.js';
export * from './events.js';
export * from './diagnosis.js';
export * from './alerts.js';
export {
  checker,
  checkLiveKitWebhookEvent,
  decodeBatch,
  decodePackedBatch,
  MAX_DEPTH,
  unsafeContent,
  type Checked,
  type DecodedBatch,
  type DecodedRow,
  type FieldError,
} from './validation.js';
export { toCsvText } from './csv.js';
export * from './packed.js';
export * from './accounts.js';
export * from './sfu.js';
export * from './precall.js';
export * from './calibration.js';
