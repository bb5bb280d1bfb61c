/**
 * Runs `task` every `intervalS` (and at once if `atStart`), never two at once; returns the function
 * that stops it: it aborts the signal given to the task and resolves when a run in progress has ended,
 * so the database can close after it.
 */
export function repeat(
  intervalS: number,
  task: (signal: AbortSignal) => Promise<void>,
  onError: (err: unknown) => void,
  atStart = false,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= task(stopping.signal)
      .catch(onError)
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, intervalS * 1000);
  if (atStart) run();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
