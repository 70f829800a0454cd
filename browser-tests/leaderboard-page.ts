import type { Locator, Page } from 'playwright-core';

/** The board's rows for one player's initials. */
export const rowsOf = (page: Page, initials: string): Locator =>
  page.locator('#board-entries tr', { has: page.locator('td', { hasText: new RegExp(`^${initials}$`) }) });

/** Fills the score form and submits it, as a person would. */
export async function submitThroughForm(page: Page, initials: string, value: string): Promise<void> {
  await page.getByLabel('Initials', { exact: true }).fill(initials);
  await page.getByLabel('Score', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Submit score' }).click();
}
