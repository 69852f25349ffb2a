// With API keys the inbox asks for a key once, then shows only that
// tenant's jobs; signing out asks again.
import { base, launch, expect } from './lib.mjs';

const { KEY, MINE, THEIRS } = process.env;
const b = await launch();
const { page } = b;
await page.goto(base + '/ui');
expect(page.url() === base + '/ui/login', 'the inbox to ask for a key', page.url());
await page.fill('#key', 'not a key');
// The refusal is a 401 page, which chromium logs as a failed load.
b.tolerate(/status of 401/);
const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type=submit]')]);
expect(refused.status() === 401, 'the wrong key to be answered 401', refused.status());
await page.waitForSelector('.error');
expect((await page.textContent('.error')).includes('not valid'), 'a wrong key to be refused', await page.innerText('main'));
await page.fill('#key', KEY);
await Promise.all([page.waitForURL(base + '/ui'), page.keyboard.press('Enter')]);
const html = await page.innerHTML('main');
expect(html.includes(MINE), "the tenant's own job", html);
expect(!html.includes(THEIRS), "no other tenant's job", html);
const cookies = await b.context.cookies();
const sess = cookies.find((c) => c.name === 'askonce_session');
expect(sess && sess.httpOnly && sess.sameSite === 'Strict' && sess.path === '/ui', 'an HttpOnly SameSite=Strict session cookie', cookies);
expect(!cookies.some((c) => c.value.includes(KEY)), 'no cookie holding the key', cookies);
await Promise.all([page.waitForURL(base + '/ui/login'), page.click('text=Sign out')]);
await page.goto(base + '/ui');
expect(page.url() === base + '/ui/login', 'signing out to end the session', page.url());
await b.close();
console.log('ok');
