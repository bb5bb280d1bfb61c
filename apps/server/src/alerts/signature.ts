import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signatures as the Standard Webhooks specification writes them, so receivers may verify with
 * its libraries or the recipe in docs/alerts.md: HMAC-SHA256, keyed by the endpoint's secret (base64 after
 * `whsec_`), over `id.timestamp.body`, sent as `v1,<base64>`.
 */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export function signatureHeaders(secret: string, id: string, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
