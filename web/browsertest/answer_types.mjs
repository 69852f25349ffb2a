// For each question type: open the answer link, answer with the page's
// own control, and see the outcome go from "Planning…" to the plan tree
// without a reload. The Go test passes one link per type.
import { base, launch, expect, screenshot } from './lib.mjs';

const b = await launch();
const page = b.page;

// answered submits the form and waits for the plan, checking that the
// page was updated in place (the marker set before survives).
async function answered(name) {
  await page.waitForURL(/\/outcome$/);
  const first = await page.textContent('#outcome-heading');
  expect(first === 'Planning…', `${name}: "Planning…" first`, first);
  await page.evaluate(() => { window.__stay = true; });
  await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
  expect(await page.evaluate(() => window.__stay === true), `${name}: the plan swapped in without a reload`, 'reloaded');
  const h = await page.textContent('#outcome-heading');
  expect(h === 'Planned', `${name}: heading Planned`, h);
}

// SELECT_ONE: radio list; pick "frozen".
let r = await page.goto(base + process.env.LINK_SELECT);
expect(r.status() === 200, 'select link 200', r.status());
expect(r.headers()['cache-control'] === 'no-store', 'no-store', r.headers()['cache-control']);
await screenshot(page, 'answer-select');
await page.check('input[type=radio][value="frozen"]');
await page.click('button[value=answer]');
await answered('SELECT_ONE');
expect((await page.textContent('.outcome-answer')) === 'frozen', 'the answer shown', await page.textContent('.outcome-answer'));

// CONFIRM: Yes / No buttons, the default marked.
await page.goto(base + process.env.LINK_CONFIRM);
const def = await page.textContent('.confirm button.primary');
expect(/\(default\)/.test(def), 'the default button marked', def);
await screenshot(page, 'answer-confirm');
await page.click('button[value=yes]');
await answered('CONFIRM');

// TARGET_FILE: the filter hides non-matching files live.
await page.goto(base + process.env.LINK_TARGET);
expect(await page.isVisible('#file-filter'), 'the filter shown with JS', 'hidden');
await page.fill('#file-filter', 'docs');
expect(await page.isHidden('label[data-file="a.md"]'), 'a.md filtered out', 'visible');
expect(await page.isVisible('label[data-file="docs/b.md"]'), 'docs/b.md still shown', 'hidden');
await screenshot(page, 'answer-file');
await page.check('input[value="docs/b.md"]');
await page.click('button[value=answer]');
await answered('TARGET_FILE');

// FREE_TEXT: the byte counter follows the text live.
await page.goto(base + process.env.LINK_FREE);
await page.fill('#free-text', 'write the notes é');
const used = await page.textContent('#byte-used');
expect(used === '18', 'the counter in UTF-8 bytes', used);
await page.fill('#free-text', 'x'.repeat(4097));
expect(await page.evaluate(() => document.querySelector('#byte-count').classList.contains('over')), 'the counter marks the overflow', 'not marked');
await page.fill('#free-text', 'fetch the data, then build the report and then email it to the team');
await screenshot(page, 'answer-free');
await page.click('button[value=answer]');
await answered('FREE_TEXT');
const nested = await page.$$eval('.plan-tree .tree .tree .task-title', (ts) => ts.map((t) => t.textContent));
// How long the chain is is the interpreter's; the page nests each task
// under the one it depends on.
expect(nested.length >= 1, 'tasks nested two deep by dependency', nested);
await screenshot(page, 'answer-outcome');

// Without JavaScript the same form works and the outcome page refreshes itself.
const nojs = await b.browser.newContext({ javaScriptEnabled: false });
const p2 = await nojs.newPage();
r = await p2.goto(base + process.env.LINK_NOJS);
expect(r.status() === 200, 'no-JS link 200', r.status());
expect(await p2.isVisible('label[data-file="a.md"]'), 'all files shown without JS', 'hidden');
await p2.check('input[value="a.md"]');
await p2.click('button[value=answer]');
await p2.waitForSelector('.plan-tree .task', { timeout: 20000 });
await nojs.close();

await b.close();
console.log('ok');
