import type { AlertRule, AlertRuleInput, AlertRuleList, WebhookEndpointList } from '@rtcscope/protocol';
import { useCallback, useState } from 'react';
import { describeCondition } from '../lib/alerts.js';
import { apiGet, apiSend } from '../lib/api.js';
import { mayDo } from '../lib/auth.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { endpointName, RuleForm } from './RuleForm.js';
import { Listing } from './Status.js';

const NEW_RULE: AlertRuleInput = { name: '', enabled: true, condition: { kind: 'call-issue', issueType: 'downlink-loss' } };
const inputOf = (r: AlertRule): AlertRuleInput => ({
  name: r.name,
  enabled: r.enabled,
  condition: r.condition,
  endpointIds: r.endpointIds,
  fireAfterS: r.fireAfterS,
  resolveAfterS: r.resolveAfterS,
  includeLab: r.includeLab,
});
/** How a rule's alerts come and go: its hysteresis, and whether the lab's runs count. */
const timing = (r: AlertRule) =>
  `${r.fireAfterS ? `held ${r.fireAfterS} s to fire; ` : ''}clear ${r.resolveAfterS} s to resolve${r.includeLab ? '; lab runs too' : ''}`;

/** The project's alert rules: what each watches, on or off, changed, tested, deleted; and a new one. */
export function AlertRules() {
  // The webhooks too: a rule names those it sends to.
  const fetchRules = useCallback(async () => {
    // Only admins see webhooks (they hold signing secrets).
    const [rules, endpoints] = await Promise.all([
      apiGet<AlertRuleList>('/alerts/rules'),
      mayDo('manage-webhooks') ? apiGet<WebhookEndpointList>('/alerts/endpoints') : { endpoints: [] },
    ]);
    return { rules: rules.rules, endpoints: endpoints.endpoints };
  }, []);
  const { data, error: loadError, reload } = useLoad(fetchRules);
  const rules = data?.rules;
  const endpoints = data?.endpoints ?? [];
  const sendsTo = (r: AlertRule) =>
    r.endpointIds === null
      ? 'every webhook'
      : endpoints
          .filter((e) => r.endpointIds!.includes(e.id))
          .map(endpointName)
          .join(', ') || 'the dashboard only';
  const { act, error: actionError } = useAction(reload);
  const [editing, setEditing] = useState<string | null>(null);
  const [tested, setTested] = useState<string | null>(null);
  const error = actionError ?? loadError;
  const member = mayDo('edit-alert-rules');

  return (
    <section className="panel" data-testid="alert-rules">
      <h2>Rules</h2>
      <p className="muted">
        Checked every 2 seconds against production's live calls (the lab's runs only where a rule asks) and the last 15 minutes. Each alert
        fires once its condition has held the rule's time, and is resolved once it has been clear the rule's time: a condition that comes
        and goes stays one alert.
      </p>
      <Listing
        items={rules}
        error={error}
        what="the rules"
        empty="No rules yet. Add one below: for example, when a live call raises downlink loss."
      >
        {(rules) => (
          <table className="calls">
            <thead>
              <tr>
                <th>Name</th>
                <th>Alerts when</th>
                <th>Sends to</th>
                <th>On</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.map((r) =>
                editing === r.id ? (
                  <tr key={r.id}>
                    <td colSpan={5}>
                      <RuleForm
                        initial={inputOf(r)}
                        endpoints={endpoints}
                        button="Save"
                        onCancel={() => setEditing(null)}
                        submit={(input) =>
                          act(() => apiSend('PUT', `/alerts/rules/${r.id}`, input)).then((ok) => (ok && setEditing(null), ok))
                        }
                      />
                    </td>
                  </tr>
                ) : (
                  <tr key={r.id} data-testid={`rule-${r.name}`}>
                    <td>{r.name}</td>
                    <td>
                      {describeCondition(r.condition)}
                      <div className="muted">{timing(r)}</div>
                    </td>
                    <td>{sendsTo(r)}</td>
                    <td>
                      <input
                        type="checkbox"
                        checked={r.enabled}
                        disabled={!member}
                        aria-label={`${r.name} on`}
                        onChange={(e) =>
                          void act(() => apiSend('PUT', `/alerts/rules/${r.id}`, { ...inputOf(r), enabled: e.target.checked }))
                        }
                      />
                    </td>
                    <td hidden={!member}>
                      <button
                        type="button"
                        className="link"
                        onClick={() => void act(() => apiSend('POST', `/alerts/rules/${r.id}/test`)).then((ok) => ok && setTested(r.id))}
                      >
                        Send a test
                      </button>
                      {tested === r.id && <span className="muted"> sent: see the notifications and delivery logs</span>}
                      <button type="button" className="link" onClick={() => setEditing(r.id)}>
                        Edit
                      </button>
                      <button
                        type="button"
                        className="link"
                        onClick={() =>
                          window.confirm(`Delete the rule "${r.name}"? Its open alerts end without a resolution.`) &&
                          void act(() => apiSend('DELETE', `/alerts/rules/${r.id}`))
                        }
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        )}
      </Listing>
      {member ? (
        <>
          <h3>New rule</h3>
          <RuleForm
            initial={NEW_RULE}
            endpoints={endpoints}
            button="Add rule"
            submit={(input) => act(() => apiSend('POST', '/alerts/rules', input))}
          />
        </>
      ) : (
        <p className="muted">Members, admins and owners make and change rules.</p>
      )}
    </section>
  );
}
