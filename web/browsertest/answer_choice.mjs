// An email's option link opens the answer page with that option chosen;
// one click on Answer answers with it (web/preselect_test.go checks the
// job: the option, and that it came from the email).
import { base, launch, expect } from './lib.mjs';

const b = await launch();
const page = b.page;
await page.goto(base + process.env.LINK);
expect(await page.isChecked('input[value="frozen"]'), 'frozen chosen', await page.content());
expect(!(await page.isChecked('input[value="hot"]')), 'the default not chosen', '');
await page.click('button[value=answer]');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
await b.close();
console.log('ok');
