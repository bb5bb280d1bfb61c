import { AuditLog } from '../components/AuditLog.js';
import { Members } from '../components/Members.js';
import { OrgProjects } from '../components/OrgProjects.js';
import { SingleSignOn } from '../components/SingleSignOn.js';
import { ErrorBox } from '../components/Status.js';
import { apiSend } from '../lib/api.js';
import { currentCredentials, currentOrganization } from '../lib/auth.js';
import { useAction } from '../lib/hooks.js';
import { NameForm } from '../components/NameForm.js';

/** The organization of the project shown (or the person's first): its projects, members and audit log. */
export function Organization() {
  const credentials = currentCredentials();
  const { act: change, error } = useAction();
  if (credentials?.kind !== 'session') return <main>An API key opens one project; organizations are for people who sign in.</main>;
  const { me } = credentials;
  const org = currentOrganization() ?? me.organizations[0];
  /** Runs a change to the organization, then starts the page over on what it became. */
  const act = (work: () => Promise<unknown>) =>
    change(async () => {
      await work();
      window.location.assign('/organization');
    });
  const deleteOrganization = async (id: string, name: string) => {
    const typed = window.prompt(
      `Delete "${name}" with every project, call, sample, key, alert and lab run, for good? Type its name to confirm.`,
    );
    if (typed !== null) await act(() => apiSend('DELETE', `/orgs/${id}`, { confirm: typed }));
  };
  const makeOrganization = (name: string) =>
    change(async () => {
      await apiSend('POST', '/orgs', { name });
      window.location.reload();
    });
  return (
    <main>
      <div className="toolbar">
        <h1>{org ? org.name : 'No organization'}</h1>
        {org && <span className="badge">your role: {org.role}</span>}
      </div>
      {error && <ErrorBox error={error} />}
      {!org && <p>You belong to no organization (yet): make one, or ask to be invited to yours.</p>}
      {org && <OrgProjects org={org} />}
      {org && <Members org={org} myId={me.user.id} />}
      {org?.can.includes('manage-sso') && <SingleSignOn orgId={org.id} />}
      {org?.can.includes('read-audit') && <AuditLog orgId={org.id} />}
      {org?.can.includes('manage-organization') && (
        <section className="panel" data-testid="org-settings">
          <h2>Settings</h2>
          <NameForm
            label="Rename to"
            placeholder={org.name}
            maxLength={100}
            button="Rename"
            onSubmit={(name) => act(() => apiSend('PATCH', `/orgs/${org.id}`, { name }))}
          />
          {org.can.includes('delete-organization') && (
            <p>
              <button type="button" className="link danger" onClick={() => void deleteOrganization(org.id, org.name)}>
                Delete this organization…
              </button>{' '}
              <span className="muted">with every project and all of their data; members keep their accounts.</span>
            </p>
          )}
        </section>
      )}
      <section className="panel">
        <h2>Another organization</h2>
        <NameForm label="Make an organization named" placeholder="e.g. Acme" maxLength={100} button="Make" onSubmit={makeOrganization} />
      </section>
    </main>
  );
}
