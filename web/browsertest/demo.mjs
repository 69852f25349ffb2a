// The pages as a newcomer first sees them, from a readable demo (the Go
// test makes the jobs: questions waiting, plans made): at 1280 px every
// badge of the inbox ("Yes or no", "Pick one, ...") is on one line, and no
// text of a test fixture (markup, hostile strings) is on the page. With
// SCREENSHOTS set, docs/img/inbox.png and docs/img/job.png come from here.
import { base, launch, expect, screenshot } from './lib.mjs';

const { PLANNED_JOB } = process.env;
const b = await launch();
const { page } = b;
await page.setViewportSize({ width: 1280, height: 800 });
const resp = await page.goto(base + '/ui');
expect(resp.status() === 200, 'GET /ui to be 200', resp.status());

// A badge wraps when its text is laid out on more than one line box.
const wrapped = await page.evaluate(() => Array.from(document.querySelectorAll('.tag, .status')).map((e) => ({
  text: e.textContent.trim(), lines: e.getClientRects().length,
  height: e.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(e).fontSize) * 2,
})).filter((e) => e.lines > 1 || e.height > e.lineHeight));
const badges = await page.locator('.q-text .tag').allTextContents();
expect(badges.some((t) => t.trim() === 'Yes or no'), 'a "Yes or no" badge in the inbox', badges);
expect(wrapped.length === 0, 'every badge on one line at 1280 px', wrapped);
const text = await page.innerText('main');
expect(!/[<>]|onerror|alert\(/.test(text), 'no markup or test strings in the demo', text);
await screenshot(page, 'inbox');

await page.goto(base + '/ui/jobs/' + PLANNED_JOB);
expect(await page.locator('.plan li[role=treeitem] li[role=treeitem]').count() > 0, 'a task drawn under its dependency', await page.innerHTML('main'));
const usage = await page.textContent('dd.usage');
expect(usage.includes('no model tokens'), 'the rules interpreter\'s job to say "no model tokens"', usage);
await screenshot(page, 'job');
await b.close();
console.log('ok');
