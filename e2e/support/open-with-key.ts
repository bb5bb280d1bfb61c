import { expect, type Page } from '@playwright/test';

/**
 * Opens the dashboard in a tab nobody is signed in to with an API key, as a person would from a link:
 * the link only offers the key, naming its project, and the click that accepts it opens the project.
 */
export async function openWithKey(page: Page, url: string, apiKey: string): Promise<void> {
  await page.goto(`${url}/#key=${apiKey}`);
  await page.getByRole('button', { name: /^Open ".*" with this key$/ }).click();
  await expect(page.getByText('API key', { exact: true })).toBeVisible();
}
