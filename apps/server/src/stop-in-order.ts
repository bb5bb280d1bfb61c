/** A part of the process to stop, named for the message that says it did not. */
export interface StopStep {
  name: string;
  stop: () => Promise<void>;
}

/**
 * Stops each step after the one before, within `deadlineMs` in all: past it, `overdue` is told which
 * step is still stopping and the steps after it (so that it can release what must not outlive the
 * process, like an embedded PostgreSQL), and the rest is not waited for. Resolves true when every step
 * stopped in time. A stop that never ends — a job that ignores its abort signal, a request that never
 * finishes — cannot hold a shutdown for longer than an orchestrator's grace period.
 */
export function stopInOrder(
  steps: readonly StopStep[],
  deadlineMs: number,
  overdue: (step: string, rest: readonly StopStep[]) => Promise<void>,
): Promise<boolean> {
  let current = 0;
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      void overdue(steps[current]!.name, steps.slice(current + 1)).finally(() => resolve(false));
    }, deadlineMs);
    void (async () => {
      for (; current < steps.length; current++) await steps[current]!.stop();
      clearTimeout(timer);
      resolve(true);
    })();
  });
}
