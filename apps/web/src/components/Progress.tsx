import type { RunStatus } from '@rtcscope/experiments';

export function StatusBadge({ status }: { status: RunStatus }) {
  return <span className={`badge ${status}`}>{status}</span>;
}

/** A progress bar that also says its value, for people and for screen readers. */
export function ProgressBar({ fraction, label }: { fraction: number; label: string }) {
  const pct = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <span className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      {/* The bar is a share of its track, not of the whole (with the label): 49 % once drew 68 % full. */}
      <span className="track">
        <span className="bar" style={{ width: `${pct}%` }} />
      </span>
      <span className="pct">{pct} %</span>
    </span>
  );
}
