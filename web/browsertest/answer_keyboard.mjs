// Keyboard only: Tab to the choices, arrows to choose, Tab to the button,
// Enter or Space to send. No mouse.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
const page = b.page;
const key = (k) => page.keyboard.press(k);

async function tabTo(selector, max = 30) {
  for (let i = 0; i < max; i++) {
    await key('Tab');
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) return;
  }
  throw new Error('Tab never reached ' + selector);
}

// SELECT_ONE: the first radio takes focus; ArrowDown chooses the next.
await page.goto(base + process.env.LINK_SELECT);
await tabTo('input[type=radio]');
await key('ArrowDown');
const chosen = await page.evaluate(() => document.querySelector('input[type=radio]:checked').value);
expect(chosen === 'frozen', 'ArrowDown chose the second option', chosen);
await tabTo('button[value=answer]');
await key('Enter');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
expect((await page.textContent('.outcome-answer')) === 'frozen', 'answered by keyboard', await page.textContent('.outcome-answer'));

// CONFIRM: Tab to No and press Space.
await page.goto(base + process.env.LINK_CONFIRM);
await tabTo('button[value=no]');
await key('Space');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
expect((await page.textContent('.outcome-answer')) === 'no', 'No by keyboard', await page.textContent('.outcome-answer'));

// FREE_TEXT: type, then Tab to Send and press Enter.
await page.goto(base + process.env.LINK_FREE);
await tabTo('#free-text');
await page.keyboard.type('keyboard only');
await tabTo('button[value=answer]');
await key('Enter');
await page.waitForSelector('.plan-tree .task', { timeout: 20000 });
await b.close();
console.log('ok');
