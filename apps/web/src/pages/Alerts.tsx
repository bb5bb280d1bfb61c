import { AlertRules } from '../components/AlertRules.js';
import { NotificationList } from '../components/NotificationList.js';
import { WebhookEndpoints } from '../components/WebhookEndpoints.js';
import { mayDo } from '../lib/auth.js';

/** Alerts: what fired, the rules that watch the calls, and where notifications are sent. */
export function Alerts() {
  return (
    <main>
      <div className="toolbar">
        <h1>Alerts</h1>
      </div>
      <NotificationList />
      <AlertRules />
      {mayDo('manage-webhooks') && <WebhookEndpoints />}
    </main>
  );
}
