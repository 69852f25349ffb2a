// Hostile interpreter text renders as text: no element is made from it
// and no dialog opens (lib.mjs fails the test on one).
import { base, launch, expect } from './lib.mjs';

const hostile = '<img src=x onerror=alert(1)>';
const b = await launch();
const page = b.page;
await page.goto(base + process.env.LINK);
const q = await page.textContent('#question');
expect(q === hostile, 'the question shown as text', q);
expect((await page.$$('main img, main script, main svg')).length === 0, 'no element from the text', 'found some');
await page.check('input[type=radio] >> nth=0');
await page.click('button[value=answer]');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
const title = await page.textContent('.task-title');
expect(title === hostile, 'the task title shown as text', title);
expect((await page.$$('main img, main script, main svg')).length === 0, 'no element from the plan', 'found some');
await page.waitForTimeout(300);
await b.close();
console.log('ok');
