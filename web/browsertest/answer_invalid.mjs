// An invalid answer shows the server's message with the allowed values
// and keeps what was typed; a valid one then plans, and the used link is
// 410 Gone.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
b.tolerate(/status of 422/); // the invalid answer's response, provoked below
const page = b.page;
const link = base + process.env.LINK;
await page.goto(link);
await page.fill('#path', '../outside');
const [resp] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[value=answer]')]);
expect(resp.status() === 422, 'status 422', resp.status());
const err = await page.textContent('#answer-error');
expect(err.includes('leaves the project root'), "the server's message", err);
const allowed = await page.$$eval('.allowed code', (cs) => cs.map((c) => c.textContent));
expect(JSON.stringify(allowed) === JSON.stringify(['a.md', 'docs/b.md']), 'the allowed values', allowed);
expect((await page.inputValue('#path')) === '../outside', 'the typed path kept', await page.inputValue('#path'));
await page.fill('#path', '');
await page.check('input[value="a.md"]');
await page.click('button[value=answer]');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });

// The page's own request to a 410 is not an error of the page: read it with the API.
const again = await page.request.get(link);
expect(again.status() === 410, 'the used link is 410', again.status());
const text = await again.text();
expect(text.includes('already answered') && text.includes('Answered at'), 'the 410 says which and when', text);
await b.close();
console.log('ok');
