import type { SfuConnection, SfuView } from '@rtcscope/protocol';
import { formatTime } from '../lib/format.js';

const connectionText = (c: SfuConnection) =>
  `${c.role}: ${c.upAt === null ? 'never up' : `up ${formatTime(c.upAt)}`}${c.downAt === null ? '' : `, hung up ${formatTime(c.downAt)}${c.reason ? ` (${c.reason})` : ''}`}`;

/**
 * The room as the SFU saw it (Janus's event handler's reports, LiveKit's webhooks): every member, whether
 * or not its SDK reported, what it published, and (Janus) whose feeds it received and its connections.
 */
export function SfuMembers({ sfu, colors }: { sfu: SfuView | null; colors: ReadonlyMap<string, string> }) {
  if (!sfu) return null;
  const names = new Map(sfu.members.filter((m) => m.feed !== null).map((m) => [m.feed!, m.participantId ?? m.display ?? `feed ${m.feed}`]));
  const unmonitored = sfu.members.filter((m) => m.participantId === null).length;
  return (
    <section className="panel" data-testid="sfu-members">
      <h2>
        The SFU’s view <span className="unit">({sfu.sfu === 'livekit' ? 'LiveKit’s webhooks' : 'Janus’s own reports'} of the room)</span>
      </h2>
      {unmonitored > 0 && (
        <p className="small" data-testid="sfu-unmonitored">
          {unmonitored === 1 ? 'One member' : `${unmonitored} members`} of the room sent no samples: the SDK did not load there (or was not
          given this call’s id), so only the SFU’s view of
          {unmonitored === 1 ? ' it' : ' them'} shows.
        </p>
      )}
      <table className="calls">
        <thead>
          <tr>
            <th>Member</th>
            <th>Monitored as</th>
            <th>In the room</th>
            <th>Publishes</th>
            <th>Receives from</th>
            <th>Connections with the SFU</th>
          </tr>
        </thead>
        <tbody>
          {sfu.members.map((m) => (
            <tr key={`${m.room} ${m.feed ?? m.joinedAt}`} data-testid={`sfu-member-${m.feed ?? 'viewer'}`}>
              <td>
                {m.display ?? <span className="muted">unnamed</span>}{' '}
                {sfu.sfu === 'janus' && <span className="muted small">{m.feed === null ? 'watching only' : `feed ${m.feed}`}</span>}
              </td>
              <td>
                {m.participantId ? (
                  <>
                    <span className="swatch" style={{ background: colors.get(m.participantId) }} />
                    {m.participantId}
                  </>
                ) : (
                  <span className="warn">not monitored</span>
                )}
              </td>
              <td>
                {m.joinedAt === null ? '—' : formatTime(m.joinedAt)} – {m.leftAt === null ? 'still in' : formatTime(m.leftAt)}
              </td>
              <td>
                {m.published.length ? (
                  m.published.map((t) => `${t.kind}${t.codec ? ` ${t.codec}` : ''}`).join(', ')
                ) : (
                  <span className="muted">nothing</span>
                )}
              </td>
              <td>
                {sfu.sfu === 'livekit' ? (
                  <span className="muted">not reported by LiveKit</span>
                ) : m.subscribedTo.length ? (
                  m.subscribedTo.map((f) => names.get(f) ?? `feed ${f}`).join(', ')
                ) : (
                  <span className="muted">nobody</span>
                )}
              </td>
              <td className="small">
                {m.connections.length ? (
                  m.connections.map((c) => <div key={`${c.role} ${c.upAt}`}>{connectionText(c)}</div>)
                ) : (
                  <span className="muted">{sfu.sfu === 'livekit' ? 'not reported by LiveKit' : 'none reported'}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
