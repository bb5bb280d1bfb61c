import type { CallIssue } from '@rtcscope/protocol';
import { issueName } from '../lib/diagnosis.js';
import { formatDuration, formatTime, timeTicks, timeZone } from '../lib/format.js';

const SEVERITY_COLOR = { critical: '#b91c1c', warning: '#d97706', info: '#6b7280' } as const;
const ROW_H = 22;
const LABEL_W = 120;
const AXIS_H = 20;
/** How wide a bar's name is drawn, at 11 px: beside a bar too short to hold it, where the row is free. */
const nameWidth = (name: string) => name.length * 6 + 8;

/** Issues of one participant in rows, each in the first row where it overlaps no other: none hides another. */
export function stackIssues(issues: readonly CallIssue[], now: number): { issue: CallIssue; row: number }[] {
  const rowsEnd: number[] = [];
  return [...issues]
    .sort((a, b) => a.start - b.start)
    .map((issue) => {
      let row = rowsEnd.findIndex((end) => end <= issue.start);
      if (row === -1) row = rowsEnd.push(0) - 1;
      rowsEnd[row] = issue.end ?? now;
      return { issue, row };
    });
}

/**
 * The call's issues on its time axis, a lane per participant, coloured by severity; an open issue runs
 * to now; one that follows from another participant's issue is drawn faint and dashed. Clicking one
 * selects it (the page zooms its charts to it and highlights its stream).
 */
export function IssueLanes({
  issues,
  participants,
  domain,
  now,
  live,
  colors,
  selected,
  onSelect,
}: {
  issues: CallIssue[];
  participants: string[];
  domain: [number, number];
  now: number;
  /** Whether the call is still going: an ended call's empty lanes are its verdict, not a "so far". */
  live: boolean;
  colors: ReadonlyMap<string, string>;
  selected: number | null;
  onSelect: (issue: CallIssue | null) => void;
}) {
  const width = 1000;
  const [from, to] = domain;
  const right = width - 8;
  const x = (ts: number) => LABEL_W + ((Math.min(Math.max(ts, from), to) - from) / Math.max(1, to - from)) * (right - LABEL_W);
  const stacks = participants.map((participant) => {
    const stacked = stackIssues(
      issues.filter((i) => i.participantId === participant),
      now,
    );
    return { participant, stacked, rows: Math.max(1, ...stacked.map((s) => s.row + 1)) };
  });
  // Each lane starts below the ones above it.
  const lanes = stacks.map((lane, k) => ({ ...lane, top: 2 + stacks.slice(0, k).reduce((h, l) => h + l.rows * ROW_H + 6, 0) }));
  const lanesHeight = lanes.reduce((h, l) => h + l.rows * ROW_H + 6, 0);
  const ticks = timeTicks(domain);
  return (
    <section className="panel" data-testid="issue-lanes">
      <h2>
        Issues <span className="unit">(a lane per participant; times in {timeZone}; click one to zoom to it)</span>
      </h2>
      {issues.length === 0 ? (
        <div className="state empty small">{live ? 'No issue found in this call so far.' : 'No issue found in this call.'}</div>
      ) : (
        <svg viewBox={`0 0 ${width} ${lanesHeight + AXIS_H}`} width="100%" role="list" aria-label="issues by participant">
          {lanes.map(({ participant: p, top, rows, stacked }) => (
            <g key={p} data-testid={`lane-${p}`}>
              <text x={4} y={top + 15} fontSize={12} fill={colors.get(p) ?? '#111827'}>
                {p}
              </text>
              <line x1={LABEL_W} x2={width - 8} y1={top + (rows * ROW_H) / 2} y2={top + (rows * ROW_H) / 2} stroke="#e5e7eb" />
              {stacked.map(({ issue: i, row }) => {
                // A bar is at least 4 px wide, and stays inside its lane at the right end.
                const x1 = Math.min(x(i.start), right - 4);
                const x2 = Math.max(x1 + 4, x(i.end ?? now));
                const y = top + row * ROW_H + 2;
                const nextInRow = Math.min(
                  right,
                  ...stacked.filter((o) => o.row === row && o.issue.start > i.start).map((o) => x(o.issue.start)),
                );
                const name = issueName(i.type);
                const inside = x2 - x1 > nameWidth(name);
                const beside = !inside && nextInRow - x2 > nameWidth(name);
                return (
                  <g
                    key={i.id}
                    role="listitem"
                    className="issue-bar"
                    onClick={() => onSelect(selected === i.id ? null : i)}
                    data-testid={`issue-${i.type}`}
                  >
                    <title>{`${issueName(i.type)} (${i.severity}), ${formatTime(i.start)}${i.end ? ` for ${formatDuration(i.end - i.start)}` : ', still open'}: ${i.cause}${i.causeId === null ? '' : `. ${i.check}`}`}</title>
                    <rect
                      x={x1}
                      y={y}
                      width={x2 - x1}
                      height={ROW_H - 4}
                      rx={3}
                      fill={SEVERITY_COLOR[i.severity]}
                      fillOpacity={(selected === null || selected === i.id ? 0.85 : 0.3) * (i.causeId === null ? 1 : 0.55)}
                      stroke={selected === i.id ? '#111827' : i.causeId === null ? 'none' : SEVERITY_COLOR[i.severity]}
                      strokeDasharray={i.causeId === null ? undefined : '4 2'}
                    />
                    {(inside || beside) && (
                      <text
                        x={inside ? x1 + 4 : x2 + 4}
                        y={y + 13}
                        fontSize={11}
                        fill={inside ? '#fff' : SEVERITY_COLOR[i.severity]}
                        pointerEvents="none"
                      >
                        {name}
                      </text>
                    )}
                  </g>
                );
              })}
            </g>
          ))}
          <g data-testid="issue-axis" aria-hidden="true">
            <line x1={LABEL_W} x2={right} y1={lanesHeight + 2} y2={lanesHeight + 2} stroke="#9ca3af" />
            {ticks.map((t) => (
              <g key={t}>
                <line x1={x(t)} x2={x(t)} y1={lanesHeight} y2={lanesHeight + 5} stroke="#9ca3af" />
                <text x={x(t)} y={lanesHeight + 17} fontSize={11} fill="#6b7280" textAnchor="middle">
                  {formatTime(t)}
                </text>
              </g>
            ))}
          </g>
        </svg>
      )}
    </section>
  );
}
