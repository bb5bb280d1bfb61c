import { type AlertCondition, type AlertConditionKind, type AlertRuleInput, RULE_DEFAULTS, type WebhookEndpoint } from '@rtcscope/protocol';
import { VERDICT_RULE } from '@rtcscope/metrics';
import { useState } from 'react';
import { CONDITION_KINDS, defaultCondition, ISSUE_TYPES } from '../lib/alerts.js';
import { issueName } from '../lib/diagnosis.js';

/** A number field of a condition, with its unit and limits. */
function NumberField({
  label,
  unit,
  value,
  min,
  max,
  step,
  onChange,
}: {
  label: string;
  unit: string;
  value: number;
  min: number;
  max: number;
  step?: number;
  onChange: (v: number) => void;
}) {
  return (
    <label>
      {label} ({unit})
      <input type="number" value={value} min={min} max={max} step={step ?? 1} required onChange={(e) => onChange(Number(e.target.value))} />
    </label>
  );
}

/** A fleet condition's share (%) and the fewest cases it is judged from. */
function ShareFields({
  label,
  abovePct,
  unit,
  least,
  onChange,
}: {
  label: string;
  abovePct: number;
  unit: string;
  least: number;
  onChange: (abovePct: number, least: number) => void;
}) {
  return (
    <>
      <NumberField label={label} unit="%" value={abovePct} min={0} max={100} onChange={(v) => onChange(v, least)} />
      <NumberField label="Judged from" unit={unit} value={least} min={1} max={1_000_000} onChange={(v) => onChange(abovePct, v)} />
    </>
  );
}

function IssueField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <label>
      Issue
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {ISSUE_TYPES.map((t) => (
          <option key={t} value={t}>
            {issueName(t)}
          </option>
        ))}
      </select>
    </label>
  );
}

function ConditionFields({ c, set }: { c: AlertCondition; set: (c: AlertCondition) => void }) {
  switch (c.kind) {
    case 'call-verdict':
      return (
        <label title={VERDICT_RULE}>
          Judged
          <select value={c.atLeast} onChange={(e) => set({ ...c, atLeast: e.target.value === 'fair' ? 'fair' : 'poor' })}>
            <option value="poor">poor</option>
            <option value="fair">fair or poor</option>
          </select>
        </label>
      );
    case 'call-issue':
      return <IssueField value={c.issueType} onChange={(issueType) => set({ ...c, issueType })} />;
    case 'call-score':
      return (
        <>
          <NumberField
            label="Score under"
            unit="1–5"
            value={c.below}
            min={1}
            max={5}
            step={0.1}
            onChange={(below) => set({ ...c, below })}
          />
          <NumberField label="For" unit="s" value={c.forS} min={5} max={3600} onChange={(forS) => set({ ...c, forS })} />
        </>
      );
    case 'never-connected':
      return (
        <NumberField
          label="Not connected after"
          unit="s"
          value={c.afterS}
          min={5}
          max={3600}
          onChange={(afterS) => set({ ...c, afterS })}
        />
      );
    case 'fleet-issue-share':
      return (
        <>
          <IssueField value={c.issueType} onChange={(issueType) => set({ ...c, issueType })} />
          <ShareFields
            label="Share of calls above"
            abovePct={c.abovePct}
            unit="calls"
            least={c.minCalls}
            onChange={(abovePct, minCalls) => set({ ...c, abovePct, minCalls })}
          />
        </>
      );
    case 'fleet-setup-failures':
      return (
        <ShareFields
          label="Failures above"
          abovePct={c.abovePct}
          unit="participants"
          least={c.minParticipants}
          onChange={(abovePct, minParticipants) => set({ ...c, abovePct, minParticipants })}
        />
      );
    case 'precall-failing-share':
      return (
        <ShareFields
          label="Failed tests above"
          abovePct={c.abovePct}
          unit="tests"
          least={c.minTests}
          onChange={(abovePct, minTests) => set({ ...c, abovePct, minTests })}
        />
      );
  }
}

/** Where the rule's notifications go: every webhook, or those chosen. */
function Recipients({
  endpoints,
  chosen,
  set,
}: {
  endpoints: readonly WebhookEndpoint[];
  chosen: string[] | null | undefined;
  set: (ids: string[] | null) => void;
}) {
  if (endpoints.length === 0) return <span className="muted">Sends to the dashboard (no webhooks yet)</span>;
  return (
    <fieldset>
      <legend>Sends to</legend>
      <label className="check">
        <input type="radio" checked={!chosen} onChange={() => set(null)} /> every webhook
      </label>
      <label className="check">
        <input type="radio" checked={!!chosen} onChange={() => set([])} /> only
      </label>
      {chosen &&
        endpoints.map((e) => (
          <label key={e.id} className="check">
            <input
              type="checkbox"
              checked={chosen.includes(e.id)}
              onChange={(ev) => set(ev.target.checked ? [...chosen, e.id] : chosen.filter((id) => id !== e.id))}
            />{' '}
            {endpointName(e)}
          </label>
        ))}
    </fieldset>
  );
}

/** A webhook as a person tells it apart: its host and path. */
export const endpointName = (e: WebhookEndpoint) => {
  const url = URL.canParse(e.url) ? new URL(e.url) : null;
  return url ? `${url.host}${url.pathname === '/' ? '' : url.pathname}` : e.url;
};

/** A rule's hysteresis, as the form asks for it. */
const TIMING = { fireAfterS: 'Fires once it has held', resolveAfterS: 'Resolves once clear for' } as const;

/** A rule made or changed: its name, condition, whether it is on, and which webhooks it goes to. */
export function RuleForm({
  initial,
  endpoints,
  submit,
  onCancel,
  button,
}: {
  initial: AlertRuleInput;
  endpoints: readonly WebhookEndpoint[];
  submit: (rule: AlertRuleInput) => Promise<boolean>;
  onCancel?: () => void;
  button: string;
}) {
  const [rule, setRule] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="campaign-form"
      data-testid="rule-form"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        void submit({ ...rule, name: rule.name.trim() }).then((ok) => {
          setBusy(false);
          if (ok && !onCancel) setRule(initial);
        });
      }}
    >
      <div className="fields">
        <label>
          Name
          <input
            value={rule.name}
            required
            maxLength={120}
            placeholder="e.g. Loss on the way in"
            onChange={(e) => setRule({ ...rule, name: e.target.value })}
          />
        </label>
        <label>
          When
          <select
            value={rule.condition.kind}
            onChange={(e) => setRule({ ...rule, condition: defaultCondition(e.target.value as AlertConditionKind) })}
            aria-label="Condition"
          >
            {Object.entries(CONDITION_KINDS).map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <ConditionFields c={rule.condition} set={(condition) => setRule({ ...rule, condition })} />
        {(Object.keys(TIMING) as (keyof typeof TIMING)[]).map((field) => (
          <NumberField
            key={field}
            label={TIMING[field]}
            unit="s"
            value={rule[field] ?? RULE_DEFAULTS[field]}
            min={0}
            max={3600}
            onChange={(v) => setRule({ ...rule, [field]: v })}
          />
        ))}
        <Recipients endpoints={endpoints} chosen={rule.endpointIds} set={(endpointIds) => setRule({ ...rule, endpointIds })} />
        <label className="check" title="lab runs are kept apart from production: a rule judges them only when this is ticked">
          <input
            type="checkbox"
            checked={rule.includeLab ?? RULE_DEFAULTS.includeLab}
            onChange={(e) => setRule({ ...rule, includeLab: e.target.checked })}
          />{' '}
          lab runs too
        </label>
        <label className="check">
          <input type="checkbox" checked={rule.enabled} onChange={(e) => setRule({ ...rule, enabled: e.target.checked })} /> on
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : button}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
