import type { OrganizationInfo, ProjectCreated } from '@rtcscope/protocol';
import { apiSend } from '../lib/api.js';
import { chooseProject, currentCredentials } from '../lib/auth.js';
import { useAction } from '../lib/hooks.js';
import { NameForm } from './NameForm.js';
import { Empty, ErrorBox } from './Status.js';

/** The organization's projects: open one, make one (admins), delete one with its data (owners, confirmed by name). */
export function OrgProjects({ org }: { org: OrganizationInfo }) {
  const { act, error } = useAction();
  const current = currentCredentials();
  const shown = current?.kind === 'session' ? current.projectId : null;
  const make = (name: string) =>
    act(async () => {
      const made = await apiSend<ProjectCreated>('POST', `/orgs/${org.id}/projects`, { name });
      chooseProject(made.project.id, '/project');
    });
  const remove = async (id: string, name: string) => {
    const typed = window.prompt(
      `Delete "${name}" with all of its calls, samples, keys, alerts and lab runs, for good? Type its name to confirm.`,
    );
    if (typed === null) return;
    await act(async () => {
      await apiSend('DELETE', `/orgs/${org.id}/projects/${id}`, { confirm: typed });
      window.location.assign('/organization');
    });
  };
  return (
    <section className="panel" data-testid="org-projects">
      <h2>Projects</h2>
      {error && <ErrorBox error={error} />}
      {org.projects.length === 0 && (
        <Empty>No project yet. {org.can.includes('create-projects') ? 'Make one to get its ingest key.' : 'An admin can make one.'}</Empty>
      )}
      <ul>
        {org.projects.map((p) => (
          <li key={p.id}>
            {p.id === shown ? (
              <b>{p.name}</b>
            ) : (
              <button type="button" className="link" onClick={() => chooseProject(p.id)}>
                {p.name}
              </button>
            )}{' '}
            {org.can.includes('delete-projects') && (
              <button type="button" className="link danger" onClick={() => void remove(p.id, p.name)}>
                Delete…
              </button>
            )}
          </li>
        ))}
      </ul>
      {org.can.includes('create-projects') && (
        <NameForm label="New project" placeholder="e.g. Web app" maxLength={100} button="Make project" onSubmit={make} />
      )}
    </section>
  );
}
