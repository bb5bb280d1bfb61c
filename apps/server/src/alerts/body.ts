import type { AlertNotification } from '@rtcscope/protocol';

const HEADLINE = {
  firing: 'Alert',
  resolved: 'Resolved',
  ended: 'Ended (its participant left or its call ended)',
  test: 'Test alert',
} as const;

/**
 * What an endpoint receives: the notification as documented (docs/alerts.md), or for a Slack endpoint a
 * message its incoming webhook shows.
 */
export function deliveryBody(format: 'json' | 'slack', n: AlertNotification): string {
  if (format === 'json') return JSON.stringify(n);
  const call = n.alert.callId === null ? '' : ` (call \`${n.alert.callId}\`)`;
  return JSON.stringify({ text: `*${HEADLINE[n.state]}: ${n.rule.name}*${call}\n${n.alert.summary}` });
}
