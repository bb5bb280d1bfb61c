import type { CallDetail } from '@rtcscope/protocol';
import { routesOf } from '../lib/routes.js';

const LAYER_NAMES: Record<string, string> = { q: 'quarter', h: 'half', f: 'full' };

/**
 * Who receives whom: each sent track, the simulcast layers it goes out in, and the participants that
 * receive a copy (through an SFU, by the track id the copy keeps). Nothing shows for a call without one.
 */
export function WhoReceivesWhom({ detail, colors }: { detail: CallDetail; colors: ReadonlyMap<string, string> }) {
  const routes = routesOf(detail);
  if (!routes.length) return null;
  const swatch = (p: string) => <span className="swatch" style={{ background: colors.get(p) }} />;
  return (
    <section className="panel" data-testid="routes">
      <h2>Who receives whom</h2>
      <table className="calls">
        <thead>
          <tr>
            <th>Sender</th>
            <th>Track</th>
            <th title="simulcast encodings the sender sends (rid); an SFU forwards one of them to each receiver">Layers sent</th>
            <th>Received by</th>
          </tr>
        </thead>
        <tbody>
          {routes.map((r) => (
            <tr key={`${r.sender} ${r.kind} ${r.trackId}`} data-testid={`route-${r.sender}-${r.kind}`}>
              <td>
                {swatch(r.sender)}
                {r.sender}
              </td>
              <td>
                {r.kind} {r.trackId && <span className="muted small">{r.trackId}</span>}
              </td>
              <td>{r.layers.length ? r.layers.map((l) => (LAYER_NAMES[l] ? `${l} (${LAYER_NAMES[l]})` : l)).join(', ') : 'one'}</td>
              <td>
                {r.receivers.length ? (
                  r.receivers.map((p, k) => (
                    <span key={p}>
                      {k > 0 && ', '}
                      {swatch(p)}
                      {p}
                    </span>
                  ))
                ) : (
                  <span className="muted">nobody reported a copy</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
