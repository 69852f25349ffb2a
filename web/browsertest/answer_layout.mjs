// The answer page's layout at a desktop and a phone width, for each
// question type: no vertical gap over 32 px between consecutive blocks,
// the question heading plain (not the inbox's card), the "(default)"
// marker readable (contrast at least 4.5:1 on what is behind it), no
// internal code (SELECT_ONE, ...) shown, what to do said once. Then, for a
// SELECT_ONE: an empty "Other" is refused in the browser, and after a 422
// the chosen radio stays chosen.
import { base, launch, expect } from './lib.mjs';

const b = await launch();
b.tolerate(/status of 422/); // provoked below, without JavaScript
const page = b.page;

// gaps are the vertical gaps between consecutive visible blocks of the
// article and of its form, with the two blocks' names.
function gaps() {
  const name = (e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : '') + (e.id ? '#' + e.id : '');
  const out = [];
  for (const parent of [document.querySelector('article'), document.querySelector('form')]) {
    if (!parent) continue;
    const kids = Array.from(parent.children).filter((e) => {
      const r = e.getBoundingClientRect();
      return r.height > 0 && getComputedStyle(e).display !== 'none';
    });
    for (let i = 1; i < kids.length; i++) {
      const gap = kids[i].getBoundingClientRect().top - kids[i - 1].getBoundingClientRect().bottom;
      out.push({ from: name(kids[i - 1]), to: name(kids[i]), gap: Math.round(gap) });
    }
  }
  return out;
}

// contrasts are the contrast ratios of each "(default)" marker's text on
// the first opaque background behind it.
function contrasts() {
  const rgb = (s) => s.match(/[\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  return Array.from(document.querySelectorAll('.default-mark')).map((m) => {
    let bg = null;
    for (let e = m; e && !bg; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) bg = c.slice(0, 3);
    }
    bg = bg || [255, 255, 255];
    const fg = rgb(getComputedStyle(m).color).slice(0, 3);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return { text: m.parentElement.textContent.trim(), ratio: (hi + 0.05) / (lo + 0.05) };
  });
}

const links = {
  SELECT_ONE: process.env.LINK_SELECT,
  CONFIRM: process.env.LINK_CONFIRM,
  TARGET_FILE: process.env.LINK_TARGET,
  FREE_TEXT: process.env.LINK_FREE,
};
for (const width of [1280, 390]) {
  await page.setViewportSize({ width, height: 900 });
  for (const [type, link] of Object.entries(links)) {
    const at = `${type} at ${width} px`;
    await page.goto(base + link);
    for (const g of await page.evaluate(gaps)) {
      expect(g.gap <= 32, `${at}: at most 32 px between ${g.from} and ${g.to}`, `${g.gap} px`);
    }
    const marks = await page.evaluate(contrasts);
    // The destructive step's confirmation defaults to no; a question
    // whose default nobody chose has none (rule 17), so no marker.
    if (type === 'CONFIRM') expect(marks.length === 1, `${at}: one default marker`, marks);
    if (type === 'SELECT_ONE') expect(marks.length === 0, `${at}: no default marker`, marks);
    for (const m of marks) expect(m.ratio >= 4.5, `${at}: "(default)" in ${m.text} with contrast ≥ 4.5:1`, m.ratio.toFixed(2));
    const h1 = await page.evaluate(() => { const s = getComputedStyle(document.querySelector('h1')); return { left: s.borderLeftWidth, top: s.borderTopWidth }; });
    expect(h1.left === '0px' && h1.top === '0px', `${at}: the question heading has no card border`, h1);
    const text = await page.evaluate(() => document.body.innerText);
    for (const code of ['SELECT_ONE', 'CONFIRM', 'TARGET_FILE', 'FREE_TEXT']) {
      expect(!text.includes(code), `${at}: no internal code ${code} shown`, text);
    }
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide <= width, `${at}: no sideways scrolling`, wide);
  }
}

// An empty "Other" is refused by the browser: nothing is sent.
await page.goto(base + links.SELECT_ONE);
let posted = 0;
page.on('request', (r) => { if (r.method() === 'POST') posted++; });
await page.check('#other-radio');
await page.fill('#other-text', '   ');
await page.click('button[value=answer]');
const msg = await page.evaluate(() => document.querySelector('#other-text').validationMessage);
expect(msg !== '', 'the empty Other marked invalid', msg);
await page.fill('#other-text', '\u200b');
await page.click('button[value=answer]');
expect(posted === 0, 'nothing sent for an empty Other', posted);

// Without JavaScript the server refuses it (422) and the Other radio
// stays chosen, with what was typed.
const nojs = await b.browser.newContext({ javaScriptEnabled: false });
const p2 = await nojs.newPage();
await p2.goto(base + links.SELECT_ONE);
await p2.check('#other-radio');
await p2.fill('#other-text', '\u200b');
const [resp] = await Promise.all([p2.waitForResponse((r) => r.request().method() === 'POST'), p2.click('button[value=answer]')]);
expect(resp.status() === 422, 'an empty Other is 422 without JavaScript', resp.status());
await p2.waitForSelector('#answer-error');
expect(await p2.isChecked('#other-radio'), 'after the 422 the Other radio stays chosen', 'unchecked');
await nojs.close();

await b.close();
console.log('ok');
