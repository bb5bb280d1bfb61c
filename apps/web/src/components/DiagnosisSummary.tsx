import type { CallIssue } from '@rtcscope/protocol';
import { headlineIssues, issueName } from '../lib/diagnosis.js';
import { formatDuration, formatNumber, formatTime } from '../lib/format.js';

/** The call's diagnosis in plain words: who had what, when, for how long, how bad, and what to check. */
export function DiagnosisSummary({ issues, now, score, onSelect }: { issues: CallIssue[]; now: number; score: number | null; onSelect: (i: CallIssue) => void }) {
  const worst = headlineIssues(issues, now).slice(0, 5);
  return (
    <section className="panel" data-testid="diagnosis-summary">
      <h2>
        Diagnosis <span className="unit">(score {formatNumber(score, 'of 5', 1)}, the mean of the call's 5-s windows)</span>
      </h2>
      {worst.length === 0 ? (
        <p className="muted">No issue found: every detector stayed quiet (docs/diagnosis.md lists what each looks for).</p>
      ) : (
        <ul className="diagnosis">
          {worst.map((i) => (
            <li key={i.id}>
              <button type="button" className="link" onClick={() => onSelect(i)}>
                <b className={`severity ${i.severity}`}>{i.severity}</b> {issueName(i.type)} for <b>{i.participantId}</b> from {formatTime(i.start)}
                {i.end === null ? ', still open' : ` for ${formatDuration(i.end - i.start)}`}
              </button>
              : {i.cause}. <span className="muted">Check: {i.check}</span>
            </li>
          ))}
          {issues.length > worst.length && <li className="muted">and {issues.length - worst.length} more, on the lanes below.</li>}
        </ul>
      )}
    </section>
  );
}
