// The pages a person reads say in words what the API says in codes, and
// count with the right plurals: each page of PAGES is checked in its
// visible text (what Chromium renders, not the HTML), and the job pages
// for what they must say instead.
import { base, launch, expect } from './lib.mjs';

const { PAGES, EVERYONE_LINK, SELECT_JOB, FILE_JOB, CONFIRM_JOB, PLANNED_JOB, ANSWERED_JOB } = process.env;
// Codes of the API that must not reach a page, and counts with the wrong
// plural.
const banned = [
  /\b(SELECT_ONE|TARGET_FILE|CONFIRM|FREE_TEXT)\b/,
  /\b[a-z]+_[a-z_]+\b/, // scope_unclear, target_file_ambiguous, validation_error, retry_parse_error...
  /\bhard ?cap\b/i,
  /\bmanaged\b/,
  /\bsource: /,
  /\btenant\b/i, // no API keys: there is one tenant, and no one needs the word
  /\$0\.0000/,
  /(^|[^\d.])1 (attempts|tasks|tries|tokens)\b/,
  /(^|[^\d.])([02-9]|\d\d+) (attempt|task|try)\b/,
];

const b = await launch();
const { page } = b;
const text = {};
for (const path of PAGES.split(' ')) {
  const res = await page.goto(base + path);
  expect(res.ok(), `${path} to load`, res.status());
  const seen = await page.innerText('body');
  for (const re of banned) {
    const m = seen.match(re);
    expect(!m, `${path} to say no ${re} (found "${m && m[0]}")`, seen);
  }
  text[path] = seen;
}
const says = (path, want) => expect(text[path].includes(want), `${path} to say "${want}"`, text[path]);
says(SELECT_JOB, 'Pick one');
says(SELECT_JOB, 'asked because the goal says two things');
says(SELECT_JOB, 'askonce plans it; asking a second time makes it go on with its own assumptions');
says(FILE_JOB, 'Which file?');
says(CONFIRM_JOB, 'Yes or no');
says(PLANNED_JOB, '1 attempt');
says(PLANNED_JOB, 'planned');
says(PLANNED_JOB, 'none: no builder is set up');
says(ANSWERED_JOB, '2 attempts');
says(ANSWERED_JOB, 'answered by a person');
says('/ui/memory', 'the answers every project shares');
says(EVERYONE_LINK, 'the agents of every project get this answer');
await b.close();
console.log('ok');
