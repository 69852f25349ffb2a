// The answer page shows each field the input of its type: a number input
// bounded as the field is, a checkbox per option of a SELECT_MANY (two
// options differing only in case are two boxes), a date picker, an email
// input. A bad value comes back beside its field with what was sent kept;
// the corrected form plans, with each value as it was picked.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
b.tolerate(/status of 422/); // the invalid answer's response, provoked below
const page = b.page;
await page.goto(base + process.env.LINK);

const num = 'input[name="f.replicas"]';
expect((await page.getAttribute(num, 'type')) === 'number', 'a number input', await page.getAttribute(num, 'type'));
expect((await page.getAttribute(num, 'min')) === '1' && (await page.getAttribute(num, 'max')) === '10' && (await page.getAttribute(num, 'step')) === '1',
  'bounded as the field is', await page.$eval(num, (e) => e.outerHTML));
const boxes = await page.$$eval('input[type=checkbox][name="f.regions"]', (bs) => bs.map((x) => x.value));
expect(JSON.stringify(boxes) === JSON.stringify(['eu', 'EU', 'us']), 'a checkbox per option, case kept', boxes);
const labels = await page.$$eval('fieldset[data-field=regions] .choice-label', (ls) => ls.map((l) => l.textContent));
expect(JSON.stringify(labels) === JSON.stringify(['Europe', 'Europe (legacy)', 'us']), "the options' titles shown", labels);
expect((await page.getAttribute('input[name="f.day"]', 'type')) === 'date', 'a date picker');
expect((await page.getAttribute('input[name="f.owner"]', 'type')) === 'email', 'an email input');

// The browser itself refuses an out-of-range number.
await page.fill(num, '500');
expect(!(await page.$eval(num, (e) => e.checkValidity())), 'the browser refuses 500 above max 10');

// The server refuses what the browser let through: too many picks.
await page.fill(num, '3');
await page.check('input[name="f.regions"][value="EU"]');
await page.check('input[name="f.regions"][value="eu"]');
await page.check('input[name="f.regions"][value="us"]');
await page.fill('input[name="f.day"]', '2026-11-30');
await page.fill('input[name="f.owner"]', 'dana@example.com');
const [resp] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[value=answer]')]);
expect(resp.status() === 422, 'status 422', resp.status());
const err = await page.textContent('#field-1-error');
expect(err.includes('picks 3') && err.includes('1 to 2'), "the server's message beside the field", err);
expect((await page.inputValue(num)) === '3', 'the number kept', await page.inputValue(num));
expect(await page.isChecked('input[name="f.regions"][value="EU"]') && await page.isChecked('input[name="f.regions"][value="us"]'), 'the picks kept');
expect((await page.inputValue('input[name="f.day"]')) === '2026-11-30', 'the date kept');
expect((await page.getAttribute(num, 'aria-invalid')) === null, 'a good field is not marked invalid');

await page.uncheck('input[name="f.regions"][value="us"]');
await page.click('button[value=answer]');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
const answer = await page.textContent('.outcome-answer');
expect(answer === 'replicas: 3; regions: eu, EU; day: 2026-11-30; owner: dana@example.com', 'the outcome shows each typed value', answer);
await b.close();
console.log('ok');
