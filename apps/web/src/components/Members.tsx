import { type InvitationCreated, type MemberList, type OrganizationInfo, ROLES, type ResetLink, type Role } from '@rtcscope/protocol';
import { type FormEvent, useCallback, useState } from 'react';
import { apiGet, apiSend } from '../lib/api.js';
import { formatDateTime } from '../lib/format.js';
import { useAction, useLoad } from '../lib/hooks.js';
import { ErrorBox, Loading } from './Status.js';

const WHAT: Record<Role, string> = {
  owner: 'everything, deleting projects included',
  admin: 'keys, members, alerts, retention',
  member: 'lab campaigns and alert rules',
  viewer: 'read only',
};

/** The organization's people: their roles (changed by admins), invitations, reset links, removal. */
export function Members({ org, myId }: { org: OrganizationInfo; myId: string }) {
  const base = `/orgs/${org.id}`;
  const fetchMembers = useCallback(() => apiGet<MemberList>(`${base}/members`), [base]);
  const { data, error: loadError, reload } = useLoad(fetchMembers);
  const { act, error } = useAction(reload);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [link, setLink] = useState<{ what: string; url: string } | null>(null);
  // What the person may do here, and to whom, is the server's to say (its access policy).
  const admin = org.can.includes('manage-members');
  const assignable = data?.assignable ?? [];

  const invite = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      const made = await apiSend<InvitationCreated>('POST', `${base}/invitations`, { email: email.trim(), role });
      setLink(
        made.link
          ? {
              what: `Invitation for ${made.invitation.email}, not mailed (this server sends no mail): pass this link on yourself. It works once, for 7 days.`,
              url: made.link,
            }
          : null,
      );
      setEmail('');
    });
  };

  return (
    <section className="panel" data-testid="members">
      <h2>Members</h2>
      <p className="muted">
        {ROLES.slice()
          .reverse()
          .map((r) => `${r}: ${WHAT[r]}`)
          .join(' · ')}
      </p>
      {(error ?? loadError) && <ErrorBox error={(error ?? loadError)!} />}
      {!data && !loadError && <Loading what="the members" />}
      {data && (
        <table className="calls">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Role</th>
              <th>Member since</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.members.map((m) => {
              return (
                <tr key={m.userId} data-testid={`member-${m.email}`}>
                  <td>
                    {m.name} {m.userId === myId && <span className="badge">you</span>}
                  </td>
                  <td>{m.email}</td>
                  <td>
                    {m.canChange ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => void act(() => apiSend('PUT', `${base}/members/${m.userId}`, { role: e.target.value }))}
                      >
                        {assignable.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{formatDateTime(m.since)}</td>
                  {!admin && (
                    <td>
                      {m.userId === myId && m.canRemove && (
                        <button
                          type="button"
                          className="link"
                          onClick={() =>
                            window.confirm(`Leave ${org.name}? You lose access to its projects at once.`) &&
                            void act(() => apiSend('DELETE', `${base}/membership`)).then(
                              (ok) => ok && window.location.assign('/organization'),
                            )
                          }
                        >
                          Leave
                        </button>
                      )}
                    </td>
                  )}
                  {admin && (
                    <td>
                      {m.canChange && m.userId !== myId && (
                        <button
                          type="button"
                          className="link"
                          onClick={() =>
                            void act(async () => {
                              const made = await apiSend<ResetLink>('POST', `${base}/members/${m.userId}/reset-link`);
                              setLink({
                                what: `Password-reset link for ${m.email}: pass it on yourself. It works once, for an hour.`,
                                url: made.link,
                              });
                            })
                          }
                        >
                          Reset link
                        </button>
                      )}{' '}
                      {m.canRemove && (
                        <button
                          type="button"
                          className="link"
                          onClick={() =>
                            m.userId === myId
                              ? window.confirm(`Leave ${org.name}? You lose access to its projects at once.`) &&
                                void act(() => apiSend('DELETE', `${base}/membership`)).then(
                                  (ok) => ok && window.location.assign('/organization'),
                                )
                              : window.confirm(`Remove ${m.email} from ${org.name}? They lose access at once.`) &&
                                void act(() => apiSend('DELETE', `${base}/members/${m.userId}`))
                          }
                        >
                          {m.userId === myId ? 'Leave' : 'Remove'}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
            {data.invitations.map((i) => (
              <tr key={`i${i.id}`} className="muted" data-testid={`invitation-${i.email}`}>
                <td>invited</td>
                <td>{i.email}</td>
                <td>{i.role}</td>
                <td>until {formatDateTime(i.expiresAt)}</td>
                {admin && (
                  <td>
                    <button type="button" className="link" onClick={() => void act(() => apiSend('DELETE', `${base}/invitations/${i.id}`))}>
                      Withdraw
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {admin && (
        <form className="inline" onSubmit={invite}>
          <label>
            Invite <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@company.com" required />
          </label>
          <label>
            as{' '}
            <select value={role} onChange={(e) => setRole(e.target.value as Role)} aria-label="Role of the invited">
              {assignable.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <button type="submit">Invite</button>
        </form>
      )}
      {link && (
        <div className="token" data-testid="shown-link">
          {link.what} <code>{link.url}</code>
        </div>
      )}
    </section>
  );
}
