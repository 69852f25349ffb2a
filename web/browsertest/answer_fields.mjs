// A question with fields is one form: an input of its type per field and
// one submit. The browser refuses it while a required field is empty; a
// bad value comes back beside its field with the allowed values, what was
// chosen kept; the corrected form plans.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
b.tolerate(/status of 422/); // the invalid answer's response, provoked below
const page = b.page;
const link = base + process.env.LINK;
await page.goto(link);
expect((await page.$$('form')).length === 1, 'one form', (await page.$$('form')).length);
expect((await page.$$('fieldset.field')).length === 4, 'a fieldset per field', (await page.$$('fieldset.field')).length);
expect((await page.$$('button[value=answer]')).length === 1, 'one submit', (await page.$$('button[value=answer]')).length);
expect(!(await page.$eval('form', (f) => f.checkValidity())), 'the empty required fields keep the form from being sent');

await page.check('input[name="f.environment"][value="staging"]');
await page.check('input[name="f.migrate"][value="no"]');
await page.fill('textarea[name="f.replicas"]', '3');
await page.fill('input[name="p.config"]', '../outside');
const [resp] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[value=answer]')]);
expect(resp.status() === 422, 'status 422', resp.status());
const err = await page.textContent('#field-3-error');
expect(err.includes('leaves the project root'), "the server's message beside the field", err);
const allowed = await page.$$eval('#field-3-error .allowed code', (cs) => cs.map((c) => c.textContent));
expect(JSON.stringify(allowed) === JSON.stringify(['a.md', 'docs/b.md']), 'the allowed values', allowed);
expect(await page.isChecked('input[name="f.environment"][value="staging"]'), 'the chosen environment kept');
expect((await page.inputValue('textarea[name="f.replicas"]')) === '3', 'the typed text kept', await page.inputValue('textarea[name="f.replicas"]'));

await page.fill('input[name="p.config"]', '');
await page.check('input[name="f.config"][value="docs/b.md"]');
await page.click('button[value=answer]');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
const answer = await page.textContent('.outcome-answer');
expect(answer === 'environment: staging; replicas: 3; migrate: no; config: docs/b.md', 'the outcome shows each field', answer);
await b.close();
console.log('ok');
