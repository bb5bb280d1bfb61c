import type { PrecallReport as Report, PrecallVerdict } from '@rtcscope/protocol';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '../lib/format.js';

const VERDICT_WORDS: Record<PrecallVerdict, string> = {
  good: 'ready for a video call',
  fair: 'a call will work, with limits',
  poor: 'expect a bad call',
  failed: 'a call will not connect',
};

export function VerdictBadge({ verdict }: { verdict: PrecallVerdict }) {
  return (
    <span className={`badge verdict ${verdict}`} data-testid="precall-verdict">
      {verdict}
    </span>
  );
}

const ms = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)} ms`);
const spread = (s: { min: number; avg: number; max: number } | undefined, unit: string) =>
  s ? `${formatNumber(s.avg, unit)} on average (least ${formatNumber(s.min, unit)}, most ${formatNumber(s.max, unit)})` : '–';

function DeviceLines({ devices }: { devices: Report['devices'] }) {
  const { camera, microphone } = devices;
  return (
    <>
      <tr>
        <th>Camera</th>
        <td>
          {camera.status === 'ok'
            ? `${camera.got ? `${camera.got.width}×${camera.got.height}` : 'on'} (asked ${camera.asked.width}×${camera.asked.height}), ${camera.fps ?? '?'} frames a second${camera.label ? ` — ${camera.label}` : ''}`
            : `${camera.status}${camera.error ? `: ${camera.error}` : ''}`}
        </td>
      </tr>
      <tr>
        <th>Microphone</th>
        <td>
          {microphone.status === 'ok'
            ? `on${microphone.levelDb === undefined ? ' (level not measured: the page was not clicked)' : `, loudest at ${Math.round(microphone.levelDb)} dBFS`}${microphone.label ? ` — ${microphone.label}` : ''}`
            : `${microphone.status}${microphone.error ? `: ${microphone.error}` : ''}`}
        </td>
      </tr>
    </>
  );
}

/** What a pre-call test found: the verdict in words, then each step's figures. */
export function PrecallReport({ report }: { report: Report }) {
  const { media } = report;
  return (
    <div className="precall-report">
      <p className="precall-verdict">
        <VerdictBadge verdict={report.verdict} /> {VERDICT_WORDS[report.verdict]}
      </p>
      <ul className="findings" data-testid="precall-findings">
        {report.findings.map((f) => (
          <li key={f.code} className={f.severity}>
            {f.text}
          </li>
        ))}
      </ul>
      <table className="summary precall-summary">
        <tbody>
          <DeviceLines devices={report.devices} />
          <tr>
            <th>Candidates</th>
            <td>
              {report.gathering.candidates.map((c) => `${c.count} ${c.type} (${c.protocol})`).join(', ') || 'none'} in{' '}
              {ms(report.gathering.durationMs)}
              {report.gathering.complete ? '' : ' (gathering did not finish)'}
            </td>
          </tr>
          {media && (
            <>
              <tr>
                <th>Throughput</th>
                <td data-testid="precall-throughput">
                  {media.throughputAtLeast ? 'at least ' : ''}
                  {formatNumber(media.throughputKbps, 'kbit/s', 0)} through the TURN server over {media.transport.toUpperCase()}
                </td>
              </tr>
              <tr>
                <th>Round trip to the TURN server</th>
                <td data-testid="precall-rtt">{spread(media.rttMs, 'ms')}</td>
              </tr>
              <tr>
                <th>Jitter</th>
                <td>{spread(media.jitterMs, 'ms')}</td>
              </tr>
              <tr>
                <th>Loss</th>
                <td data-testid="precall-loss">{spread(media.lossPct, '%')}</td>
              </tr>
              <tr>
                <th>Set-up</th>
                <td>
                  relay {ms(media.networkTiming.allocateMs)}, ICE {ms(media.networkTiming.iceMs)}, DTLS {ms(media.networkTiming.dtlsMs)},
                  connected {ms(media.networkTiming.peerConnectionMs)}, first frame {ms(media.networkTiming.firstMediaMs)}
                </td>
              </tr>
            </>
          )}
        </tbody>
      </table>
      {report.transports.length > 0 && (
        <table className="calls" data-testid="precall-transports">
          <thead>
            <tr>
              <th>Way to the TURN server</th>
              <th>Server</th>
              <th>Result</th>
              <th>Relay allocated</th>
              <th>Connected</th>
            </tr>
          </thead>
          <tbody>
            {report.transports.map((t) => (
              <tr key={t.url}>
                <td>{t.transport.toUpperCase()}</td>
                <td>
                  <code>{t.url}</code>
                </td>
                <td className={t.connected ? 'quality good' : 'quality poor'}>{t.connected ? 'works' : (t.error ?? 'failed')}</td>
                <td>{ms(t.allocateMs)}</td>
                <td>{ms(t.connectMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {media && media.steps.length > 0 && (
        <figure>
          <figcaption>Video rate asked and what arrived through the TURN server, each step</figcaption>
          <ResponsiveContainer width="100%" height={220}>
            <BarChart data={media.steps.map((s) => ({ ...s, step: `${s.targetKbps}` }))}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="step" label={{ value: 'rate asked (kbit/s)', position: 'insideBottom', offset: -4 }} height={40} />
              <YAxis unit=" kbit/s" width={100} />
              <Tooltip formatter={(v) => `${Math.round(Number(v))} kbit/s`} />
              <Legend verticalAlign="top" />
              <Bar dataKey="targetKbps" name="asked" fill="#9ca3af" />
              <Bar dataKey="kbps" name="arrived" fill="#2563eb" />
            </BarChart>
          </ResponsiveContainer>
        </figure>
      )}
    </div>
  );
}
