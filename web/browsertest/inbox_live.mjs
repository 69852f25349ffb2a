// The inbox shows a new pending question without a reload; hostile text
// renders as text; a keyboard alone reaches a job page and cancels the
// job (a real browser's form post passes the CSRF checks).
//
// The Go test has created HOSTILE_JOB (pending, goal with markup) and
// PLANNED_JOB (success); it creates a job with goal LIVE_GOAL once the
// page polls /ui/updates.
import { base, launch, expect } from './lib.mjs';

const { HOSTILE_JOB, PLANNED_JOB, LIVE_GOAL } = process.env;
const b = await launch();
const { page } = b;
const resp = await page.goto(base + '/ui');
expect(resp.status() === 200, 'GET /ui to be 200', resp.status());

// Hostile text: the goal's markup is text, not an element.
const hostileText = await page.textContent(`a[href="/ui/jobs/${HOSTILE_JOB}"]`);
expect(hostileText.includes('<img src=x onerror=alert(1)>'), 'the hostile goal shown as text', hostileText);
expect(await page.locator('main img').count() === 0, 'no img element in the page', await page.innerHTML('main'));

// Live: mark this document, then wait for the question the Go test
// creates; the mark proves the page was not reloaded.
await page.evaluate(() => { window.inboxMark = 'same document'; });
const live = page.locator('.question', { hasText: LIVE_GOAL.split(' ').slice(-1)[0] });
await live.first().waitFor({ timeout: 15000 });
expect(await page.evaluate(() => window.inboxMark) === 'same document', 'the question to appear without a reload', 'the page reloaded');
const count = await page.textContent('#pending-h .count');
expect(count.trim() === '2', 'two pending questions counted', count);

// Keyboard only: Tab to the live question's link, Enter.
const href = await live.first().locator('a.q-link').getAttribute('href');
let reached = false;
for (let i = 0; i < 40 && !reached; i++) {
  await page.keyboard.press('Tab');
  reached = await page.evaluate((h) => document.activeElement && document.activeElement.getAttribute('href') === h, href);
}
expect(reached, 'Tab to reach the new question link', href);
await Promise.all([page.waitForURL(base + href), page.keyboard.press('Enter')]);
const goal = await page.textContent('dd.goal');
expect(goal.includes(LIVE_GOAL), 'the job page to show the goal', goal);
expect(await page.locator('text=SELECT_ONE').count() > 0, 'the question type on the job page', await page.innerText('main'));

// Cancel with the keyboard: Tab to the button, Enter; the form post goes
// through the origin and token checks.
reached = false;
for (let i = 0; i < 40 && !reached; i++) {
  await page.keyboard.press('Tab');
  reached = await page.evaluate(() => document.activeElement && document.activeElement.textContent === 'Cancel this job');
}
expect(reached, 'Tab to reach the Cancel button', '');
// The post redirects back to the same URL, so wait for the new page's
// status rather than for the URL.
await page.keyboard.press('Enter');
await page.waitForFunction(() => {
  const s = document.querySelector('h1 .status');
  return s && s.textContent.trim() === 'cancelled';
}, null, { timeout: 15000 }).catch(() => {});
const status = await page.textContent('h1 .status');
expect(status.trim() === 'cancelled', 'the job to be cancelled', status);

// The plan tree of a planned job.
await page.goto(base + '/ui/jobs/' + PLANNED_JOB);
expect(await page.locator('.plan li[role=treeitem] li[role=treeitem]').count() > 0, 'a task drawn under its dependency', await page.innerHTML('main'));
await b.close();
console.log('ok');
