import type { CallEvent } from '@rtcscope/protocol';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Chart } from '../lib/calldata.js';
import { formatDateTime, formatTime } from '../lib/format.js';

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

export function colorFor(key: string): string {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return PALETTE[Math.abs(h) % PALETTE.length] ?? '#2563eb';
}

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
}

/** One panel; every panel shares the call's time domain and a sync id, so hovering lines them up. */
export function MetricChart({ title, unit, chart, domain, events, hidden, onToggle, yDomain, digits = 1, testId }: MetricChartProps) {
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
            <XAxis dataKey="ts" type="number" scale="time" domain={domain} tickFormatter={formatTime} minTickGap={40} />
            <YAxis
              width={64}
              domain={yDomain ?? [0, 'auto']}
              tickFormatter={(v: number) => `${Number(v.toFixed(digits))}`}
              label={{ value: unit, angle: -90, position: 'insideLeft', style: { fill: '#6b7280', fontSize: 12 } }}
            />
            <Tooltip
              labelFormatter={(ts) => formatDateTime(Number(ts))}
              formatter={(v) => (typeof v === 'number' ? `${v.toFixed(digits)} ${unit}` : String(v))}
            />
            <Legend onClick={(entry) => onToggle(String(entry.dataKey))} wrapperStyle={{ cursor: 'pointer', fontSize: 12 }} />
            {events.map((e, k) => (
              <ReferenceLine key={`${e.ts}-${k}`} x={e.ts} stroke="#9ca3af" strokeDasharray="2 4" ifOverflow="hidden" />
            ))}
            {chart.series.map((s) => {
              // "set …" lines are what a lab run applied: steps, dashed, broken where nothing was set.
              const set = s.key.startsWith('set ');
              return (
                <Line
                  key={s.key}
                  dataKey={s.key}
                  name={s.key}
                  hide={hidden.has(s.key)}
                  stroke={set ? '#111827' : colorFor(s.key)}
                  strokeDasharray={set ? '6 3' : undefined}
                  type={set ? 'stepAfter' : 'linear'}
                  dot={false}
                  strokeWidth={set ? 1.2 : 1.6}
                  isAnimationActive={false}
                  connectNulls={!set}
                />
              );
            })}
          </LineChart>
        </ResponsiveContainer>
      )}
    </section>
  );
}
