// Signing in to the inbox with an OpenID provider (mockoidc on loopback,
// which signs in the next person the Go test queued): someone outside
// the keys file's signin lines, an expired ID token, a callback with
// another state, a real sign-in, an answer recorded as the person, the
// callback replayed, forms posted from another site, and sign-out.
import { base, launch, expect } from './lib.mjs';

const { AUTHORIZE, JOB, OTHER_JOB, EVIL_ANSWER, EVIL_CANCEL, OUTSIDER, EMAIL, ANSWERED_BY } = process.env;
const b = await launch();
const { page, context } = b;
// Refusals are 4xx pages, which chromium logs as failed loads.
b.tolerate(/status of 40[03]/);
const session = async () => (await context.cookies(base + '/ui')).find((c) => c.name === 'askonce_session');
const heading = async () => (await page.textContent('h1')).trim();

// Someone the signin lines do not name.
await page.goto(base + '/ui');
expect(page.url().startsWith(base + '/ui/auth/callback?'), 'the provider to send the browser back to the callback', page.url());
expect(await heading() === 'Not allowed', 'a Not allowed page', await page.innerText('main'));
expect((await page.innerText('main')).includes(OUTSIDER), 'the page to say who was refused', await page.innerText('main'));
expect(!(await session()), 'no session for an outsider', await context.cookies());

// An ID token that expired.
await page.goto(base + '/ui');
expect(await heading() === 'Sign in again', 'an expired token to ask for a new sign-in', await page.innerText('main'));
expect((await page.innerText('main')).includes('expired'), 'the page to say the token expired', await page.innerText('main'));
expect(!(await session()), 'no session from an expired token', await context.cookies());

// A callback whose state is not this browser's sign-in's: the sign-in
// starts in this browser's cookie jar (the context's request client
// shares it), and the provider is never visited.
const start = await context.request.get(base + '/ui/login', { maxRedirects: 0 });
const auth = new URL(start.headers()['location'] || base);
expect(start.status() === 302 && auth.href.startsWith(AUTHORIZE) && auth.searchParams.get('code_challenge_method') === 'S256',
  'a PKCE request to the provider', start.headers());
expect((await context.cookies(base + '/ui/auth/callback')).some((c) => c.name === 'askonce_oidc' && c.httpOnly), 'an HttpOnly sign-in cookie', await context.cookies());
await page.goto(base + '/ui/auth/callback?code=anything&state=' + encodeURIComponent(auth.searchParams.get('state') + 'x'));
expect((await page.innerText('main')).includes('state does not match'), 'a wrong state to be refused', await page.innerText('main'));
expect(!(await session()), 'no session from a wrong state', await context.cookies());

// The person signs in and sees the tenant's inbox.
let callback = '';
page.on('request', (r) => { if (r.url().startsWith(base + '/ui/auth/callback')) callback = r.url(); });
await page.goto(base + '/ui');
expect(page.url() === base + '/ui', 'the sign-in to end in the inbox', page.url());
const inbox = await page.innerText('main');
expect(inbox.includes(EMAIL), 'the inbox to name who signed in', inbox);
expect(await page.isVisible(`a[href="/ui/jobs/${JOB}"]`), "the tenant's pending job", await page.innerHTML('main'));
const sess = await session();
expect(sess && sess.httpOnly && sess.sameSite === 'Lax' && sess.path === '/ui' && sess.expires > Date.now() / 1000 + 3600,
  'an HttpOnly SameSite=Lax session cookie with an expiry', await context.cookies());
expect(!(await context.cookies(base + '/ui/auth/callback')).some((c) => c.name === 'askonce_oidc'), 'the sign-in cookie to be gone', await context.cookies());

// Declining in the inbox records the person.
await page.goto(base + '/ui/jobs/' + JOB);
await Promise.all([page.waitForURL(/\/a\/[^/]+$/), page.click('text=Answer this question')]);
await Promise.all([page.waitForURL(/\/outcome$/), page.click('button[value=decline]')]);
await page.goto(base + '/ui/jobs/' + JOB);
expect((await page.textContent('.answered-by')) === ANSWERED_BY, 'the job page to show who declined', await page.innerText('main'));

// The callback once more: used up, and the session stays who it was.
await page.goto(callback);
expect((await page.innerText('main')).includes('already used'), 'a replayed callback to be refused', await page.innerText('main'));

// Forms posted from another site: the answer form and the inbox's cancel.
await page.goto(EVIL_ANSWER);
await page.waitForURL((u) => u.href.startsWith(base));
expect(await heading() === 'Refused', 'a cross-site answer to be refused', await page.innerText('main'));
await page.goto(EVIL_CANCEL);
await page.waitForURL((u) => u.href.startsWith(base));
expect((await page.innerText('main')).includes('Sign in to cancel'), 'a cross-site cancel to carry no session', await page.innerText('main'));
await page.goto(base + '/ui/jobs/' + OTHER_JOB);
expect(await page.isVisible('text=Answer this question'), 'the other job to be still pending', await page.innerText('main'));

// Sign-out ends the session; the next visit signs in again.
await page.goto(base + '/ui');
await page.click('text=Sign out');
await page.waitForSelector('h1');
expect(await heading() === 'You are signed out', 'a signed-out page', await page.innerText('main'));
expect(!(await session()), 'the session cookie to be gone', await context.cookies());
// The provider signs in its default person now, whom no line names.
await page.goto(base + '/ui/jobs/' + OTHER_JOB);
expect(page.url().startsWith(base + '/ui/auth/callback?') && await heading() === 'Not allowed',
  'a job page after sign-out to go through the provider again', page.url());
await b.close();
console.log('ok');
