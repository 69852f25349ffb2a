// Shared helpers of the browser tests: Debian's chromium driven by
// playwright-core, with the flags this machine needs. Each test script is
// run by web/browser_test.go with BASE_URL (and its own variables) in the
// environment, and fails by throwing: the process exits non-zero and the
// Go test prints its output.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const base = process.env.BASE_URL;
if (!base) throw new Error('BASE_URL is not set');

// launch starts chromium and returns {browser, page}; every console error
// and every failed request of the page fails the test at close().
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('dialog', (d) => { problems.push('dialog opened: ' + d.message()); d.dismiss(); });
  const tolerated = [];
  return {
    browser, context, page, problems,
    // tolerate accepts console errors matching re: Chromium logs every 4xx
    // response a page gets as a console error, also the ones a test
    // provokes on purpose (an invalid answer's 422, a wrong key's 401).
    tolerate(re) { tolerated.push(re); },
    async close() {
      await browser.close();
      const left = problems.filter((p) => !tolerated.some((re) => re.test(p)));
      if (left.length) throw new Error('the page had problems:\n' + left.join('\n'));
    },
  };
}

// expect throws with what was seen when cond is false.
export function expect(cond, what, seen) {
  if (!cond) throw new Error(`expected ${what}; saw: ${typeof seen === 'string' ? seen : JSON.stringify(seen)}`);
}

// screenshot saves the page as docs/img/<name>.png when SCREENSHOTS names
// that folder (the Go test sets it with -screenshots).
export async function screenshot(page, name) {
  const dir = process.env.SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, name + '.png'), fullPage: true });
}
