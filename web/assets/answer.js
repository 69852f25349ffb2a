// The answer page works without this script. It adds: a live filter of
// the file list, a live byte counter for free text, choosing "Other" when
// its text is typed (and refusing it empty), and live updates of the
// outcome while planning.
'use strict';
(function () {
  const $ = (s) => document.querySelector(s);

  // Filter the files of a TARGET_FILE question as the user types.
  const filter = $('#file-filter');
  if (filter) {
    filter.closest('.file-filter').hidden = false;
    const files = Array.from(document.querySelectorAll('.choice[data-file]'));
    const count = $('#file-count');
    const apply = () => {
      const f = filter.value.trim().toLowerCase();
      let shown = 0;
      for (const l of files) {
        const match = f === '' || l.dataset.file.toLowerCase().includes(f);
        l.hidden = !match;
        if (match) shown++;
      }
      count.textContent = f === '' ? '' : shown + ' of ' + files.length + ' files';
    };
    filter.addEventListener('input', apply);
    // Enter in the filter picks the only match instead of sending the form.
    filter.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      const shown = files.filter((l) => !l.hidden);
      if (shown.length === 1) shown[0].querySelector('input').checked = true;
    });
  }

  // Count the bytes of a FREE_TEXT answer (the limit is in UTF-8 bytes).
  const text = $('#free-text');
  if (text) {
    const used = $('#byte-used');
    const max = Number(text.dataset.max);
    const enc = new TextEncoder();
    const update = () => {
      const n = enc.encode(text.value).length;
      used.textContent = String(n);
      $('#byte-count').classList.toggle('over', n > max);
    };
    text.addEventListener('input', update);
    update();
  }

  // Typing an answer of one's own chooses "Other"; "Other" chosen with
  // nothing visible typed is refused here, before the server refuses it.
  const other = $('#other-text');
  if (other) {
    const radio = $('#other-radio');
    // What the server counts as invisible: spaces, zero-width and
    // bidirectional controls.
    const visible = (s) => /[^\s\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/.test(s);
    const check = () => other.setCustomValidity(radio.checked && !visible(other.value)
      ? 'Type your own answer, or pick one of the options.' : '');
    other.addEventListener('input', () => {
      if (visible(other.value)) radio.checked = true;
      check();
    });
    for (const r of document.querySelectorAll('input[name=answer]')) r.addEventListener('change', check);
    check();
  }

  // Poll the outcome while the job plans and swap in what the server
  // rendered (already escaped there).
  const outcome = $('#outcome[data-poll]');
  if (outcome) {
    const url = outcome.dataset.poll;
    const poll = async () => {
      let r;
      try {
        r = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
      } catch (e) {
        setTimeout(poll, 3000);
        return;
      }
      if (r.status === 409) { location.reload(); return; }
      if (!r.ok) return;
      const o = await r.json();
      if (o.html) outcome.innerHTML = o.html;
      document.title = outcome.querySelector('h1').textContent + ' · askonce';
      if (!o.done) setTimeout(poll, 1000);
    };
    setTimeout(poll, 500);
  }
})();
