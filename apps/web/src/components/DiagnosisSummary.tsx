import type { CallIssue } from '@rtcscope/protocol';
import { issuesVerdict, VERDICT_RULE } from '@rtcscope/metrics';
import { Link } from 'react-router';
import { findings, type HeardApart, issueName, type whatLowers } from '../lib/diagnosis.js';
import { formatDuration, formatNumber, formatTime } from '../lib/format.js';
import { ScoreLowers } from './ScoreLowers.js';

const when = (i: CallIssue) => `from ${formatTime(i.start)}${i.end === null ? ', still open' : ` for ${formatDuration(i.end - i.start)}`}`;

/**
 * The call's diagnosis in plain words: who had what, when, for how long, how bad, and what to check;
 * what a cause did to the others in the call under it, not as causes of their own.
 */
export function DiagnosisSummary({
  issues,
  now,
  score,
  lowers,
  heard,
  onSelect,
}: {
  issues: CallIssue[];
  now: number;
  score: number | null;
  lowers: ReturnType<typeof whatLowers>;
  heard: HeardApart[];
  onSelect: (i: CallIssue) => void;
}) {
  const all = findings(issues, now);
  const shown = all.slice(0, 5);
  const byId = new Map(issues.map((i) => [i.id, i]));
  const verdict = issuesVerdict(
    score,
    issues.map((i) => ({ ...i, causeType: i.causeId === null ? null : byId.get(i.causeId)?.type })),
  );
  return (
    <section className="panel" data-testid="diagnosis-summary">
      <h2>
        Diagnosis:{' '}
        <span className={`quality ${verdict}`} title={VERDICT_RULE} data-testid="call-verdict">
          {verdict}
        </span>{' '}
        <span className="unit">
          (score {formatNumber(score, 'of 5', 1)}, the mean of the call's 5-s windows;{' '}
          <Link to="/score" title="the score against measured picture quality in the lab's calibration run">
            how good is the score
          </Link>
          )
        </span>
      </h2>
      <p className="muted small">{VERDICT_RULE}</p>
      <ScoreLowers lowers={lowers} heard={heard} />
      {shown.length === 0 ? (
        <p className="muted">No issue found: every detector stayed quiet (docs/diagnosis.md lists what each looks for).</p>
      ) : (
        <ul className="diagnosis">
          {shown.map(({ issue: i, consequences }) => (
            <li key={i.id} data-testid={`finding-${i.type}`}>
              <button type="button" className="link" onClick={() => onSelect(i)}>
                <b className={`severity ${i.severity}`}>{i.severity}</b> {issueName(i.type)} for <b>{i.participantId}</b> {when(i)}
              </button>
              : {i.cause}. <span className="muted">Check: {i.check}</span>
              {consequences.length > 0 && (
                <ul className="consequences" data-testid="consequences">
                  <li className="muted">What follows from it elsewhere in the call:</li>
                  {consequences.map((c) => (
                    <li key={c.id}>
                      <button type="button" className="link" onClick={() => onSelect(c)}>
                        <b className={`severity ${c.severity}`}>{c.severity}</b> {issueName(c.type)} for <b>{c.participantId}</b> {when(c)}
                      </button>
                      : {c.cause}.
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
          {all.length > shown.length && <li className="muted">and {all.length - shown.length} more, on the lanes below.</li>}
        </ul>
      )}
    </section>
  );
}
