// The pages load in chromium under their Content-Security-Policy, with
// the stylesheet and script served, and no console errors.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
const resp = await b.page.goto(base + '/ui');
expect(resp.status() === 200, 'GET /ui to be 200', resp.status());
const csp = resp.headers()['content-security-policy'] || '';
expect(csp.includes("script-src 'self'") && !csp.includes('unsafe-inline'), 'a CSP without inline script', csp);
const color = await b.page.evaluate(() => getComputedStyle(document.querySelector('.brand')).fontWeight);
expect(color === '600', 'the stylesheet to apply', color);
await b.close();
console.log('ok');
