import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link, Route, Routes } from 'react-router';
import { LiveIndicator } from './components/Status.js';
import { useKeyRevoked } from './lib/hooks.js';
import { getApiKey, setApiKey, takeKeyFromUrl } from './lib/auth.js';
import { CallPage } from './pages/CallPage.js';
import { CallsList } from './pages/CallsList.js';
import { Alerts } from './pages/Alerts.js';
import { Insights } from './pages/Insights.js';
import { Demo } from './pages/Demo.js';
import { Campaign } from './pages/Campaign.js';
import { Compare } from './pages/Compare.js';
import { Experiments } from './pages/Experiments.js';
import { LabRuns } from './pages/LabRuns.js';
import { Project } from './pages/Project.js';
import { SignIn } from './pages/SignIn.js';
import './styles.css';

takeKeyFromUrl();
// A dashboard link opened in a tab that already shows rtcscope changes only the fragment.
window.addEventListener('hashchange', () => takeKeyFromUrl() && window.location.reload());

function App() {
  const signedIn = getApiKey() !== null;
  const revoked = useKeyRevoked(signedIn);
  if (revoked) return <SignIn message="This API key no longer opens the project: it was revoked, or the project deleted. Sign in with another key." />;
  if (!signedIn) return <SignIn />;
  return (
    <BrowserRouter>
      <header className="top">
        <Link to="/" className="brand">
          rtcscope
        </Link>
        <nav>
          <Link to="/">Calls</Link>
          <Link to="/insights">Insights</Link>
          <Link to="/alerts">Alerts</Link>
          <Link to="/lab">Experiments</Link>
          <Link to="/demo">Demo call</Link>
          <Link to="/project">Project</Link>
          <a href="/api/docs">API</a>
        </nav>
        <LiveIndicator />
        <button
          type="button"
          className="link"
          onClick={() => {
            setApiKey(null);
            window.location.assign('/');
          }}
        >
          Sign out
        </button>
      </header>
      <Routes>
        <Route path="/" element={<CallsList />} />
        <Route path="/calls/:callId" element={<CallPage />} />
        <Route path="/insights" element={<Insights />} />
        <Route path="/alerts" element={<Alerts />} />
        <Route path="/lab" element={<Experiments />} />
        <Route path="/lab/calls" element={<LabRuns />} />
        <Route path="/lab/campaigns/:id" element={<Campaign />} />
        <Route path="/lab/compare" element={<Compare />} />
        <Route path="/demo" element={<Demo />} />
        <Route path="/project" element={<Project />} />
        <Route path="*" element={<main>Page not found. <Link to="/">Back to calls</Link></main>} />
      </Routes>
    </BrowserRouter>
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode><App /></StrictMode>);
