/**
 * The health check's answer times (ms) while `work` runs, one asked every 50 ms: a stalled event loop
 * shows as a health check that waits.
 */
export async function healthWhile<T>(serverUrl: string, work: Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const t0 = performance.now();
      await fetch(`${serverUrl}/healthz`);
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const result = await work.finally(() => (running = false));
  await probe;
  return { result, latencies };
}
