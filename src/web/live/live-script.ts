/**
 * /assets/live.js: the pages read without it; with it, a page follows its `data-live` stream
 * (server-sent events) and replaces each part the server sends by id. A file, not inline script,
 * so the pages' CSP can say `script-src 'self'`. The HTML it inserts was rendered and escaped by
 * the server's templates.
 */
export const LIVE_SCRIPT = `(function () {
  'use strict';
  var anchor = document.querySelector('[data-live]');
  if (!anchor || !window.EventSource) return;
  var source = new EventSource(anchor.getAttribute('data-live'));
  source.addEventListener('part', function (event) {
    var part;
    try { part = JSON.parse(event.data); } catch (e) { return; }
    var target = document.getElementById(part.id);
    if (!target) return;
    var holder = document.createElement('template');
    holder.innerHTML = part.html;
    var fresh = holder.content.firstElementChild;
    if (fresh) target.replaceWith(fresh);
    document.documentElement.setAttribute('data-live-updated', String(Date.now()));
  });
})();
`;
