// mcp-raw ui A B: two recordings side by side, as `mcp-raw diff` reads them. Each
// direction's messages are paired in order and compared after --ignore (ids, times
// and UUIDs unless told otherwise); the listener sends the pairs (/diff), and this
// draws them in A's time order, each message laid out with the first field that
// differs marked in both. A pair opens to each side's own page at that event.

const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
const $ = (id) => document.getElementById(id);

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

// Is `path` (keys and indexes so far) the marked one, or (for a length) its array?
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// `v` laid out as JSON, two spaces a level, with the value at `at` (or the member
// there, when `key` names one this side lacks: its parent) wrapped in <mark>.
function laid(v, at, path, depth) {
  const pad = '  '.repeat(depth);
  const hit = at !== null && same(path, at);
  let out;
  if (Array.isArray(v)) {
    out = v.length === 0 ? '[]' : '[\n' + v.map((x, i) => pad + '  ' + laid(x, at, path.concat([i]), depth + 1)).join(',\n') + '\n' + pad + ']';
  } else if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    out = keys.length === 0 ? '{}' : '{\n' + keys.map((k) => pad + '  ' + esc(JSON.stringify(k)) + ': ' + laid(v[k], at, path.concat([k]), depth + 1)).join(',\n') + '\n' + pad + '}';
  } else {
    out = esc(JSON.stringify(v));
  }
  return hit ? '<mark class="first">' + out + '</mark>' : out;
}

// The deepest part of `at` this side has: a member only the other side has is
// marked at the object that lacks it.
function reach(v, at) {
  const path = [];
  for (const step of at) {
    if (v === null || typeof v !== 'object' || !(step in v)) break;
    v = v[step];
    path.push(step);
  }
  return path;
}

function cell(side, which, pair) {
  if (!side) return '<div class="side none">(not in ' + which.toUpperCase() + ')</div>';
  const at = pair.diff && pair.diff.at.length ? reach(side.message, pair.diff.at) : (pair.diff ? [] : null);
  const link = '/?token=' + encodeURIComponent(token) + '&side=' + which + '#event=' + side.event;
  return '<div class="side"><a class="where" href="' + esc(link) + '" target="_blank" rel="noopener" title="its exact bytes, in ' +
    which.toUpperCase() + '\'s own page">event ' + side.event + ' · ' + esc(side.lane) + '</a><pre>' + laid(side.message, at, [], 0) + '</pre></div>';
}

function draw(doc) {
  const only = $('only').checked;
  const box = $('pairs');
  box.querySelectorAll('.pair:not(.heads)').forEach((el) => el.remove());
  const frag = document.createDocumentFragment();
  for (const p of doc.pairs) {
    if (only && !p.diff) continue;
    const el = document.createElement('div');
    el.className = 'pair ' + p.dir + (p.diff ? ' differs' : ' same');
    el.innerHTML = '<span class="n">' + (p.dir === 'c2s' ? '→' : '←') + ' ' + p.n + '</span>' +
      '<div class="what">' + esc(p.what) + (p.diff ? ' <span class="detail">' + esc(p.diff.detail) + '</span>' : ' <span class="hint">the same</span>') + '</div>' +
      cell(p.a, 'a', p) + cell(p.b, 'b', p);
    frag.appendChild(el);
  }
  box.appendChild(frag);
  document.body.dataset.loaded = 'whole';
}

function load() {
  fetch('/diff?token=' + encodeURIComponent(token))
    .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
    .then((doc) => {
      const name = (s) => s.name + ' (' + (s.header.role || '?') + ' over ' + (s.header.transport || '?') + ')';
      $('name-a').textContent = 'A: ' + name(doc.a);
      $('name-b').textContent = 'B: ' + name(doc.b);
      $('title').textContent = 'mcp-raw: ' + doc.a.name + ' and ' + doc.b.name;
      document.title = $('title').textContent;
      $('counts').textContent = doc.differences + ' difference' + (doc.differences === 1 ? '' : 's') +
        ' (A: ' + doc.a.c2s + ' c2s, ' + doc.a.s2c + ' s2c messages; B: ' + doc.b.c2s + ' c2s, ' + doc.b.s2c + ' s2c)';
      $('counts').dataset.differences = doc.differences;
      $('ignored').textContent = 'ignored: ' + (doc.ignore.length ? doc.ignore.join(', ') : 'nothing');
      $('status').textContent = doc.differences ? 'they differ' : 'the same';
      $('status').className = 'status ' + (doc.differences ? 'lost' : 'live');
      if (new URLSearchParams(location.hash.slice(1)).get('only') === '1') $('only').checked = true;
      $('only').addEventListener('input', () => {
        history.replaceState(null, '', location.pathname + location.search + ($('only').checked ? '#only=1' : ''));
        draw(doc);
      });
      draw(doc);
      console.log('mcp-raw ui diff: ' + doc.pairs.length + ' pairs, ' + doc.differences + ' differences');
    })
    .catch((status) => { $('status').textContent = 'refused (' + status + '): open the URL printed at start'; $('status').className = 'status lost'; });
}

load();
