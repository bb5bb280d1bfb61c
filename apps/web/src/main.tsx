import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link, Navigate, Route, Routes } from 'react-router';
import { KeyOffer } from './components/KeyOffer.js';
import { ErrorBox, LiveIndicator, Loading } from './components/Status.js';
import { useAccessEnded } from './lib/hooks.js';
import { chooseProject, type Credentials, currentOrganization, loadCredentials, signOut, takeKeyFromUrl } from './lib/auth.js';
import { Account } from './pages/Account.js';
import { CallPage } from './pages/CallPage.js';
import { CallsList } from './pages/CallsList.js';
import { Alerts } from './pages/Alerts.js';
import { Insights } from './pages/Insights.js';
import { Demo } from './pages/Demo.js';
import { Campaign } from './pages/Campaign.js';
import { Compare } from './pages/Compare.js';
import { Experiments } from './pages/Experiments.js';
import { LabRuns } from './pages/LabRuns.js';
import { HostedTest } from './pages/HostedTest.js';
import { ForgotPassword, Invite, ResetPassword, SignInLink } from './pages/Links.js';
import { Organization } from './pages/Organization.js';
import { Precall } from './pages/Precall.js';
import { PrecallTest } from './pages/PrecallTest.js';
import { Project } from './pages/Project.js';
import { ScoreCalibration } from './pages/ScoreCalibration.js';
import { SignIn, SignUp } from './pages/SignIn.js';
import './styles.css';

takeKeyFromUrl();
// A dashboard link opened in a tab that already shows rtcscope changes only the fragment.
window.addEventListener('hashchange', () => takeKeyFromUrl() && window.location.reload());

/** Who this tab is, once the server said: null while asking. */
function useCredentials(): { credentials: Credentials | null | undefined; error: Error | null } {
  const [credentials, setCredentials] = useState<Credentials | null | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    loadCredentials()
      .then(setCredentials)
      .catch((err: Error) => setError(err));
  }, []);
  return { credentials, error };
}

/** The project switcher: every project of every organization the person belongs to. */
function ProjectPicker({ credentials }: { credentials: Extract<Credentials, { kind: 'session' }> }) {
  const { me, projectId } = credentials;
  if (!me.organizations.some((o) => o.projects.length)) return null;
  return (
    <select aria-label="Project" value={projectId ?? ''} onChange={(e) => chooseProject(e.target.value)} data-testid="project-picker">
      {me.organizations.map((o) => (
        <optgroup key={o.id} label={`${o.name} (${o.role})`}>
          {o.projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

function Dashboard({ credentials }: { credentials: Exclude<Credentials, { kind: 'offer' }> }) {
  const ended = useAccessEnded(true);
  const project = credentials.kind === 'key' || credentials.projectId !== null;
  if (ended) {
    return (
      <SignIn message="This tab may no longer watch the project: its key was revoked, you were removed or signed out elsewhere, or the project was deleted. Sign in again." />
    );
  }
  const role = currentOrganization()?.role;
  return (
    <>
      <header className="top">
        <Link to="/" className="brand">
          rtcscope
        </Link>
        {project && (
          <nav>
            <Link to="/">Calls</Link>
            <Link to="/insights">Insights</Link>
            <Link to="/precall">Pre-call</Link>
            <Link to="/alerts">Alerts</Link>
            <Link to="/lab">Experiments</Link>
            <Link to="/demo">Demo call</Link>
            <Link to="/project">Project</Link>
            <a href="/api/docs">API</a>
          </nav>
        )}
        {credentials.kind === 'session' && <ProjectPicker credentials={credentials} />}
        {project && <LiveIndicator />}
        {credentials.kind === 'session' ? (
          <>
            <Link to="/organization">Organization</Link>
            <Link to="/account" title={`${credentials.me.user.email}${role ? `, ${role}` : ''}`}>
              {credentials.me.user.name}
            </Link>
          </>
        ) : (
          <span className="muted">API key</span>
        )}
        <button type="button" className="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {credentials.kind === 'session' && credentials.offeredKey && (
        <KeyOffer apiKey={credentials.offeredKey} email={credentials.me.user.email} />
      )}
      <Routes>
        {project ? (
          <>
            <Route path="/" element={<CallsList />} />
            <Route path="/calls/:callId" element={<CallPage />} />
            <Route path="/insights" element={<Insights />} />
            <Route path="/precall" element={<Precall />} />
            <Route path="/precall/:callId" element={<PrecallTest />} />
            <Route path="/alerts" element={<Alerts />} />
            <Route path="/lab" element={<Experiments />} />
            <Route path="/lab/calls" element={<LabRuns />} />
            <Route path="/lab/campaigns/:id" element={<Campaign />} />
            <Route path="/lab/compare" element={<Compare />} />
            <Route path="/demo" element={<Demo />} />
            <Route path="/project" element={<Project />} />
            <Route path="/score" element={<ScoreCalibration />} />
          </>
        ) : (
          <Route path="/" element={<Navigate to="/organization" replace />} />
        )}
        <Route path="/organization" element={<Organization />} />
        <Route path="/account" element={<Account />} />
        <Route
          path="*"
          element={
            <main>
              Page not found. <Link to="/">Back to calls</Link>
            </main>
          }
        />
      </Routes>
    </>
  );
}

/** The dashboard for whoever this tab is; the sign-in page for nobody. */
function SignedIn() {
  const { credentials, error } = useCredentials();
  if (error) {
    return (
      <main>
        <ErrorBox error={error} onRetry={() => window.location.reload()} />
      </main>
    );
  }
  if (credentials === undefined) {
    return (
      <main>
        <Loading what="your account" />
      </main>
    );
  }
  if (credentials === null) return <Navigate to="/sign-in" replace />;
  if (credentials.kind === 'offer') {
    return (
      <main>
        <KeyOffer apiKey={credentials.apiKey} email={null} onDismiss={() => window.location.assign('/sign-in')} />
      </main>
    );
  }
  return <Dashboard credentials={credentials} />;
}

// The pages that sign a person in do not ask who is signed in: on them nobody is yet, and the question
// would only be refused; nor does the hosted pre-call test, which a customer opens from a link.
function App() {
  return (
    <BrowserRouter>
      <Routes>
        <Route path="/sign-in" element={<SignIn />} />
        <Route path="/sign-up" element={<SignUp />} />
        <Route path="/sign-in-link" element={<SignInLink />} />
        <Route path="/invite" element={<Invite />} />
        <Route path="/reset-password" element={<ResetPassword />} />
        <Route path="/forgot-password" element={<ForgotPassword />} />
        <Route path="/test" element={<HostedTest />} />
        <Route path="*" element={<SignedIn />} />
      </Routes>
    </BrowserRouter>
  );
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
