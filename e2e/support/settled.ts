import type { Page } from '@playwright/test';

/**
 * A sentinel for "the page did not change": resolves once everything the page had queued when it was
 * called is handled — a request made now has come back after any answer already delivered, and two frames
 * have been drawn since, so a state update those answers caused is on screen.
 */
export async function pageSettled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await (await fetch('/healthz')).text();
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  });
}
