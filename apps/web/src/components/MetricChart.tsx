import type { StreamState } from '@rtcscope/diagnosis';
import type { CallEvent } from '@rtcscope/protocol';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Chart, LineKind } from '../lib/calldata.js';
import { formatDateTime, formatTime, timeTicks, timeZone } from '../lib/format.js';

/** How each kind of line is drawn; the colour says whose it is. */
export const LINE_STYLE: Record<LineKind, { dash?: string; width: number; opacity?: number; what: string }> = {
  sent: { width: 1.8, what: 'sent (video, or all media)' },
  received: { dash: '6 3', width: 1.8, what: 'received' },
  'sent audio': { dash: '10 3 2 3', width: 1.2, what: 'sent audio' },
  'received audio': { dash: '2 3', width: 1.4, what: 'received audio' },
  pair: { dash: '14 4', width: 2.6, opacity: 0.55, what: 'candidate pair (connection)' },
  set: { width: 4, opacity: 0.3, what: 'set by the lab' },
};

/** A stream's state as its line's name says it. */
export const STATE_WORDS: Record<StreamState, string> = {
  'never-active': 'never carried media',
  active: 'active',
  paused: 'paused',
  ended: 'ended',
};

/** Lines without a participant (the fairness index) are drawn in ink. */
const NEUTRAL = '#1f2937';

export interface MetricChartProps {
  title: string;
  unit: string;
  chart: Chart;
  domain: [number, number];
  events: CallEvent[];
  hidden: ReadonlySet<string>;
  onToggle: (key: string) => void;
  yDomain?: [number, number];
  digits?: number;
  testId: string;
  colors: ReadonlyMap<string, string>;
  /** A line to stand out (an issue's stream); the others fade. */
  highlight?: string | null;
}

/** One panel; every panel shares the call's time domain and a sync id, so hovering lines them up. */
export function MetricChart({
  title,
  unit,
  chart,
  domain,
  events,
  hidden,
  onToggle,
  yDomain,
  digits = 1,
  testId,
  colors,
  highlight = null,
}: MetricChartProps) {
  const highlighted = highlight !== null && chart.series.some((s) => s.key === highlight);
  return (
    <section className="panel" data-testid={testId}>
      <h2>
        {title} <span className="unit">({unit})</span>
      </h2>
      {chart.rows.length === 0 ? (
        <div className="state empty small">No {title.toLowerCase()} data for this call yet.</div>
      ) : (
        <ResponsiveContainer width="100%" height={220}>
          <LineChart data={chart.rows} syncId="call" margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
            <XAxis
              dataKey="ts"
              type="number"
              scale="time"
              domain={domain}
              allowDataOverflow
              ticks={timeTicks(domain)}
              tickFormatter={formatTime}
              minTickGap={40}
              height={36}
              label={{ value: `time (${timeZone})`, position: 'insideBottom', offset: -2, style: { fill: '#6b7280', fontSize: 11 } }}
            />
            <YAxis
              width={64}
              domain={yDomain ?? [0, 'auto']}
              tickFormatter={(v: number) => `${Number(v.toFixed(digits))}`}
              label={{ value: unit, angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }}
            />
            <Tooltip
              labelFormatter={(ts) => `${formatDateTime(Number(ts))} (${timeZone})`}
              formatter={(v) => (typeof v === 'number' ? `${v.toFixed(digits)} ${unit}` : String(v))}
              itemSorter={(item) => String(item.name)}
              wrapperStyle={{ fontSize: 12 }}
            />
            <Legend
              onClick={(entry) => onToggle(String(entry.dataKey))}
              wrapperStyle={{ cursor: 'pointer', fontSize: 12, paddingTop: 4 }}
            />
            {events.map((e, k) => (
              <ReferenceLine key={`${e.ts}-${k}`} x={e.ts} stroke="#9ca3af" strokeDasharray="2 4" ifOverflow="hidden" />
            ))}
            {chart.series.map((s) => {
              const style = LINE_STYLE[s.line];
              // "set …" lines are what a lab run applied: wide pale steps, broken where nothing was set.
              const set = s.line === 'set';
              // A stream that carried nothing, paused or ended: greyed, its state named, not a line of zeros to read.
              const idle = s.state !== undefined && s.state !== 'active';
              return (
                <Line
                  key={s.key}
                  dataKey={s.key}
                  name={idle ? `${s.key} (${STATE_WORDS[s.state!]})` : s.key}
                  hide={hidden.has(s.key)}
                  stroke={colors.get(s.participantId) ?? NEUTRAL}
                  strokeDasharray={style.dash}
                  strokeWidth={highlighted && s.key === highlight ? style.width + 1.5 : style.width}
                  strokeOpacity={(highlighted && s.key !== highlight) || idle ? 0.2 : (style.opacity ?? 1)}
                  legendType="plainline"
                  type={set ? 'stepAfter' : 'linear'}
                  dot={false}
                  isAnimationActive={false}
                />
              );
            })}
          </LineChart>
        </ResponsiveContainer>
      )}
    </section>
  );
}
