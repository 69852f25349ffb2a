// The inbox works without this script. It keeps the page live: every
// second it asks /ui/updates (the URL in #live's data-updates) for the
// page's state, and when that differs from the state the page was
// rendered with it fetches the page again and swaps in the new #live.
// It also keeps the "… ago" ages current.
'use strict';
(function () {
  const live = document.getElementById('live');
  if (!live) return;
  const updates = live.dataset.updates;
  let busy = false;

  function ago(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm';
    if (s < 48 * 3600) return Math.floor(s / 3600) + 'h';
    return Math.floor(s / 86400) + 'd';
  }
  function tickAges() {
    const now = Date.now();
    for (const t of document.querySelectorAll('time.age[datetime]')) {
      const at = Date.parse(t.getAttribute('datetime'));
      if (!isNaN(at)) t.textContent = ago(now - at);
    }
  }

  async function refresh() {
    const resp = await fetch(location.href, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
    if (!resp.ok) return;
    const doc = new DOMParser().parseFromString(await resp.text(), 'text/html');
    const next = doc.getElementById('live');
    const cur = document.getElementById('live');
    if (!next || !cur) return;
    // Keep keyboard focus where it was when the same element still exists.
    const focused = document.activeElement;
    const key = focused && cur.contains(focused) ? focused.getAttribute('href') || focused.getAttribute('name') : null;
    cur.replaceWith(next);
    if (key) {
      for (const el of next.querySelectorAll('a[href], [name]')) {
        if (el.getAttribute('href') === key || el.getAttribute('name') === key) { el.focus(); break; }
      }
    }
    tickAges();
  }

  async function poll() {
    if (busy) return;
    busy = true;
    try {
      const resp = await fetch(updates, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      if (resp.status === 401) { location.assign('/ui/login'); return; }
      if (!resp.ok) return;
      const body = await resp.json();
      const cur = document.getElementById('live');
      if (body.state && cur && body.state !== cur.dataset.state) await refresh();
    } catch (e) {
      // The server may be restarting: try again on the next tick.
    } finally {
      busy = false;
    }
    tickAges();
  }

  setInterval(poll, 1000);
})();
