// mcp-raw ui: the rows of a recording as they arrive (Server-Sent Events from the
// listener that served this page), filtered, in a list or as a sequence, each
// opening to its exact bytes. Only what is on screen is drawn, so a recording of
// 100,000 messages scrolls as one of ten. Nothing here talks to anyone but the
// listener that served it. Frozen (`show --html`), the same script finds the rows
// already in the page (a <script type="application/json" id="recording"> block) and
// talks to no one at all.

const token = new URLSearchParams(location.search).get('token') || '';
// `&side=b`: with `mcp-raw ui A B`, the page of B (A without it).
const side = new URLSearchParams(location.search).get('side');
const asking = '?token=' + encodeURIComponent(token) + (side ? '&side=' + encodeURIComponent(side) : '');
// `&measure=1` in the URL: the page logs how long it took (bench/ui/measure.py reads
// these lines from the browser's console): first rows drawn, the whole recording
// loaded, a scroll to its end drawn, one filter keystroke; and its JS heap (Chrome).
const measuring = new URLSearchParams(location.search).get('measure') === '1';
const mark = (what, extra) => { if (measuring) console.log('mcp-raw measure ' + what + ' ' + performance.now().toFixed(1) + (extra || '')); };
let firstDrawn = false;
let busy = 0; // ms spent in the stream's handler (parse and add), when measuring
const $ = (id) => document.getElementById(id);
const ROW = 22; // px: one row, as --row in ui.css

const rows = [];        // every row, in order
window.mcpRawRows = rows; // for the tests (and devtools): the rows as the page holds them
const shown = [];       // indexes into rows of those the filters keep; -N: OAuth flow N's line
let shownRows = 0;      // how many of shown are rows (not flow lines)
const flows = new Map(); // OAuth flow number -> its steps: [{lane, step, status}]
const folded = new Set(); // flows drawn as their one line
const headed = new Set(); // flows whose line is in shown
const opened = new Map(); // lane -> index of its "opened" row, until its first head
const asked = new Map(); // "id" -> index of the latest request with it, unanswered
const lanes = new Set();
const laneSession = new Map(); // lane -> the first Mcp-Session-Id seen on it
const sessions = new Map();    // Mcp-Session-Id -> its <optgroup> in the lane list
let view = 'list';
let picked = -1;
let drawQueued = false;
let messages = 0;
let openWhenSeen = -1; // `#row=N` in the URL: open row N once it has arrived
let openEvent = -1;    // `#event=N` (from the side-by-side page): open event N's first row
const byEvent = [];     // [event n, first row index] of each event that brought rows, in order
let findingCount = 0;   // check's findings, all of them (those on no row too)
const gave = new Map(); // requestState -> the rows of the responses that gave it
const taken = new Map(); // requestState -> the first request that sent it back
let resendable = false;  // /info said this page's server resends
let resendRows = null;   // which rows: 'http' (an HTTP tap: the request's whole HTTP message), 'requests' (a live session: a request's JSON)
let role = '';           // the recording's role: 'tap' or 'client' say how a resend travels
let holding = null;      // /info: the stdio tap holds messages (--intercept): {filter, timeout}
const holds = new Map(); // held message number -> {row: its "held" row, step: its latest step}

const FILTERS = ['q', 'method', 'tool', 'rid', 'lane', 'session', 'era', 'messages', 'errors', 'findings'];

function filterState() {
  const f = {};
  for (const k of FILTERS) {
    const el = $(k);
    f[k] = el.type === 'checkbox' ? el.checked : el.value.trim();
  }
  return f;
}

// The filters live in the URL's fragment, so a view can be shared as a link.
function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  for (const k of FILTERS) {
    const el = $(k);
    if (!h.has(k)) continue;
    if (el.type === 'checkbox') el.checked = h.get(k) === '1';
    else {
      if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === h.get(k))) {
        el.add(new Option(h.get(k), h.get(k)));
      }
      el.value = h.get(k);
    }
  }
  view = h.get('view') === 'sequence' ? 'sequence' : 'list';
  if (h.has('fold')) for (const n of h.get('fold').split(',')) folded.add(Number(n));
  if (h.has('row')) openWhenSeen = Number(h.get('row'));
  if (h.has('event')) openEvent = Number(h.get('event'));
}

function writeHash() {
  const f = filterState();
  const h = new URLSearchParams();
  for (const k of FILTERS) {
    if (f[k] === true) h.set(k, '1');
    else if (f[k]) h.set(k, f[k]);
  }
  if (view === 'sequence') h.set('view', 'sequence');
  if (folded.size) h.set('fold', [...folded].sort((a, b) => a - b).join(','));
  if (picked >= 0) h.set('row', String(picked));
  const s = h.toString();
  history.replaceState(null, '', location.pathname + location.search + (s ? '#' + s : ''));
}

function keeps(r, f) {
  if (f.messages && r.kind !== 'msg' && r.kind !== 'odd') return false;
  if (f.errors && !(r.error || r.kind === 'odd')) return false;
  if (f.findings && !(r.findings && r.findings.length)) return false;
  if (f.lane && r.lane !== f.lane) return false;
  if (f.session && r.session !== f.session) return false;
  if (f.era && r.era !== f.era) return false;
  if (f.method && !((r.method || r.answers || '').includes(f.method))) return false;
  if (f.tool && !((r.tool || '').includes(f.tool))) return false;
  if (f.rid && r.id !== f.rid) return false;
  if (f.q) {
    const q = f.q.toLowerCase();
    if (!(r.summary.toLowerCase().includes(q) || (r.bytes || '').toLowerCase().includes(q))) return false;
  }
  return true;
}

function refilter() {
  const f = filterState();
  shown.length = 0;
  shownRows = 0;
  headed.clear();
  for (let i = 0; i < rows.length; i++) if (keeps(rows[i], f)) showRow(i);
  writeHash();
  queueDraw(false);
}

// `f`: the filters, read once for a whole batch (reading the inputs for each of
// 100,000 rows costs more than the rest of add).
function add(r, f) {
  const i = rows.length;
  rows.push(r);
  if (!byEvent.length || byEvent[byEvent.length - 1][0] !== r.n) byEvent.push([r.n, i]);
  if (r.kind === 'msg' || r.kind === 'odd') messages++;
  placeLane(r);
  // A request waits for its answer; the answer links back and says how long it took.
  if (r.shape === 'request' && r.id !== null) asked.set(r.id, i);
  if ((r.shape === 'response' || r.shape === 'error') && r.id !== null && asked.has(r.id)) {
    const q = asked.get(r.id);
    asked.delete(r.id);
    r.pair = q;
    rows[q].pair = i;
    r.ms = (r.t - rows[q].t) * 1000;
    const op = rows[q].op;
    if (op !== undefined) r.opMs = (r.t - rows[op].t) * 1000; // the whole operation's time
    if (r.gives_state !== undefined) {
      if (!gave.has(r.gives_state)) gave.set(r.gives_state, []);
      gave.get(r.gives_state).push(i);
    }
  }
  if (r.shape === 'request' && r.state !== undefined) linkRetry(r, i);
  if (r.kind === 'intercept') noteHold(r, i);
  const adopted = noteFlow(r, i);
  if (adopted) refilter(); // the lane's opening joins the flow: its place changes
  else if (keeps(r, f || filterState())) showRow(i);
  if (i === openWhenSeen || (openEvent >= 0 && r.n + 1 === openEvent)) {
    openWhenSeen = -1;
    openEvent = -1;
    open(i);
  }
}

// 2026-07-28 basic/patterns/mrtr: a retry sends back the exact requestState an
// input_required result gave. It is linked to that result's request (and so to the
// operation's first attempt) only when exactly one response gave that string and no
// earlier request already sent it back; otherwise the link is refused and said, never
// guessed from the id.
function linkRetry(r, i) {
  const givers = gave.get(r.state) || [];
  if (givers.length !== 1 || taken.has(r.state)) {
    r.unlinked = givers.length === 0 ? 'its requestState was given by no response seen'
      : givers.length > 1 ? 'its requestState was given by ' + givers.length + ' responses'
        : 'its requestState was already sent back by row ' + taken.get(r.state);
    return;
  }
  taken.set(r.state, i);
  const before = rows[givers[0]].pair;
  const op = rows[before].op !== undefined ? rows[before].op : before;
  r.op = op;
  r.retryOf = before;
  rows[op].attempts = (rows[op].attempts || 1) + 1;
  r.attempt = rows[op].attempts;
}

// check's findings on an event: on the rows it brought (or, when it brought none, on
// the last row before it), so an opened row lists them and "findings only" keeps it.
// A finding may come later than its event (a request found unanswered at the end).
function found(list) {
  let changed = false;
  let reopen = false;
  for (const f of list) {
    findingCount++;
    let lo = 0, hi = byEvent.length - 1, at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (byEvent[mid][0] <= f.event) { at = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (at < 0) continue;
    const end = at + 1 < byEvent.length ? byEvent[at + 1][1] : rows.length;
    for (let i = byEvent[at][1]; i < end; i++) {
      (rows[i].findings = rows[i].findings || []).push(f);
      if (i === picked) reopen = true;
    }
    changed = true;
  }
  if (reopen) open(picked); // the open row's detail lists what was just found in it
  if (changed && $('findings').checked) refilter();
  else if (changed) queueDraw(false);
}

// An OAuth flow (the rows say which, and which step: rows.rs) is one line before its
// first row, listing its steps with their statuses; a click on it folds the flow's rows
// into it, or unfolds them.
function showRow(i) {
  const r = rows[i];
  if (r.flow) {
    if (!headed.has(r.flow)) {
      headed.add(r.flow);
      shown.push(-r.flow);
    }
    if (folded.has(r.flow)) return;
  }
  shown.push(i);
  shownRows++;
}

// A flow's steps: a request's head opens one, its response's head gives its status (a
// challenge is only a response).
// The connection a step opened for itself belongs to the flow too: its "opened" row
// joins it (true when that happened).
function noteFlow(r, i) {
  if (r.kind === 'lane' && r.summary.startsWith('opened')) opened.set(r.lane, i);
  const first = r.kind === 'head' ? opened.get(r.lane) : undefined;
  if (r.kind === 'head') opened.delete(r.lane);
  if (!r.flow) return false;
  if (!flows.has(r.flow)) flows.set(r.flow, []);
  if (r.kind !== 'head') return false;
  const steps = flows.get(r.flow);
  let adopted = false;
  if (first !== undefined && !rows[first].flow) {
    rows[first].flow = r.flow;
    rows[first].oauth = r.oauth;
    adopted = true;
  }
  if (r.status === undefined) {
    steps.push({ lane: r.lane, step: r.oauth, status: null });
    return adopted;
  }
  const open = steps.slice().reverse().find((s) => s.lane === r.lane && s.status === null);
  if (open) open.status = r.status;
  else steps.push({ lane: r.lane, step: r.oauth, status: r.status });
  return adopted;
}

function flowLine(n) {
  const el = element('div', 'row flow' + (folded.has(n) ? ' folded' : ''));
  el.dataset.flow = n;
  el.append(element('span', 'fold', folded.has(n) ? '▸' : '▾'), ' OAuth flow ' + n + ': ');
  flows.get(n).forEach((s, k) => {
    if (k) el.append(' → ');
    // A refusal is the flow's start when it is the challenge; anywhere else it failed.
    const bad = s.status >= 400 && s.step !== 'challenge';
    el.append(element('span', 'step', s.step + ' '), element('span', bad ? 'status bad' : 'status', s.status === null ? '…' : String(s.status)));
  });
  el.title = el.textContent.slice(2) + (folded.has(n) ? ' (click to unfold)' : ' (click to fold)');
  return el;
}

// A session's id, short enough for a column (the whole of it is in the row's detail).
function short(session) {
  return session.length > 8 ? session.slice(0, 8) + '…' : session;
}

// The lane list groups HTTP connections by the session they carry (legacy
// Mcp-Session-Id), so a session spread over thirteen connections is one group; the
// session list keeps one session's rows, whatever connection they came on.
function placeLane(r) {
  const list = $('lane');
  if (!lanes.has(r.lane)) {
    lanes.add(r.lane);
    list.add(new Option(r.lane, r.lane));
  }
  if (!r.session || laneSession.has(r.lane)) return;
  laneSession.set(r.lane, r.session);
  if (!sessions.has(r.session)) {
    const group = document.createElement('optgroup');
    group.label = 'session ' + short(r.session);
    list.append(group);
    sessions.set(r.session, group);
    const known = [...$('session').options].find((o) => o.value === r.session);
    if (known) known.textContent = short(r.session); // one the URL named before it came
    else $('session').add(new Option(short(r.session), r.session));
    document.body.classList.add('sessions');
  }
  const option = [...list.options].find((o) => o.value === r.lane);
  sessions.get(r.session).append(option);
}

function queueDraw(follow) {
  if (drawQueued) return;
  drawQueued = true;
  const box = $('rows');
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW * 2;
  requestAnimationFrame(() => {
    drawQueued = false;
    draw();
    if (follow && atEnd) box.scrollTop = box.scrollHeight;
  });
}

function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
}

// Exact bytes as HTML: the marks the rows carry for invisible bytes (`␍` a CR,
// `⟨BOM⟩`, `⟨xx⟩` a byte or control character in hex) drawn as small badges, so no
// glyph a font may lack is needed; each badge keeps the byte it stands for in
// data-mark (`0d`, `bom`, the hex).
function marked(s) {
  return String(s).split(/(␍|⟨BOM⟩|⟨[0-9a-f]{2,6}⟩)/).map((part, k) => {
    if (k % 2 === 0) return esc(part);
    if (part === '␍') return '<span class="mark" data-mark="0d" title="a carriage return (0x0d)">CR</span>';
    if (part === '⟨BOM⟩') return '<span class="mark" data-mark="bom" title="a byte order mark (EF BB BF)">BOM</span>';
    const hex = part.slice(1, -1);
    return '<span class="mark" data-mark="' + hex + '" title="0x' + hex + ': a control character, or a byte that is not UTF-8">' + hex + '</span>';
  }).join('');
}

// tap --intercept: a held message waits until a later row says what became of it.
function noteHold(r, i) {
  if (r.step === 'resent' || r.step === 'answered') return; // the page's resend, not a hold
  if (r.step === 'held') holds.set(r.hold, { row: i, step: 'held' });
  else if (holds.has(r.hold)) {
    const h = holds.get(r.hold);
    h.step = r.step;
    rows[h.row].decided = r.step;
    if (picked === h.row) open(h.row);
  }
  const waiting = [...holds.values()].filter((h) => h.step === 'held').length;
  document.body.dataset.waiting = waiting;
  $('hold-said').textContent = waiting ? waiting + ' waiting' : '';
}

function classes(r) {
  const c = ['row', r.dir];
  if (r.kind === 'intercept' && r.step === 'held' && !r.decided) c.push('waiting');
  if (r.kind === 'lane') c.push('lane-note');
  else if (r.oauth && r.kind === 'odd') c.push('oauth'); // an OAuth document: no JSON-RPC, no error
  else c.push(r.kind);
  if (r.oauth) c.push('in-flow');
  if (r.error) c.push('err');
  if (r.findings && r.findings.length) c.push('found');
  return c.join(' ');
}

// A row's element: built with the DOM, its place set through CSSOM (the page's
// Content-Security-Policy allows no inline style).
function element(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

function draw() {
  const box = $('rows');
  const spacer = $('spacer');
  box.classList.toggle('seq', view === 'sequence');
  $('as-list').classList.toggle('on', view === 'list');
  $('as-seq').classList.toggle('on', view === 'sequence');
  const top = view === 'sequence' ? ROW : 0;
  spacer.style.height = (shown.length * ROW + top) + 'px';
  const first = Math.max(0, Math.floor((box.scrollTop - top) / ROW) - 10);
  const last = Math.min(shown.length, Math.ceil((box.scrollTop + box.clientHeight) / ROW) + 10);
  const drawn = [];
  if (view === 'sequence') {
    const heads = element('div', 'seq-heads');
    heads.style.position = 'absolute';
    heads.style.left = '0';
    heads.style.right = '0';
    heads.style.top = box.scrollTop + 'px';
    const sides = element('span');
    sides.append(element('span', '', 'client'), element('span', '', 'server'));
    heads.append(element('span', '', 'time'), sides, element('span', '', 'lane'));
    drawn.push(heads);
  }
  for (let k = first; k < last; k++) {
    const i = shown[k];
    if (i < 0) {
      const line = flowLine(-i);
      line.style.top = (top + k * ROW) + 'px';
      drawn.push(line);
      continue;
    }
    const r = rows[i];
    const el = element('div', classes(r) + (i === picked ? ' picked' : ''));
    el.dataset.i = i;
    el.style.top = (top + k * ROW) + 'px';
    const t = element('span', 't', '+' + r.t.toFixed(4) + 's');
    const ms = r.ms !== undefined ? element('span', 'ms', r.ms.toFixed(1) + ' ms' +
      (r.opMs !== undefined && r.opMs !== r.ms ? ' (operation ' + r.opMs.toFixed(1) + ' ms)' : '')) : null;
    const badge = r.findings && r.findings.length
      ? element('span', 'badge', r.findings.length + (r.findings.length > 1 ? ' findings' : ' finding')) : null;
    const attempt = r.attempt !== undefined ? element('span', 'attempt', 'attempt ' + r.attempt) : null;
    if (view === 'sequence') {
      const body = element('span', 'body', r.summary);
      if (attempt) body.append(attempt);
      if (ms) body.append(ms);
      if (badge) body.append(badge);
      el.append(t, body, element('span', 'lane', r.lane + (r.session ? ' ' + short(r.session) : '')));
    } else {
      el.append(t, element('span', 'lane', r.lane));
      if (sessions.size) el.append(element('span', 'sess', r.session ? short(r.session) : ''));
      el.append(element('span', 'arrow', r.dir === 'c2s' ? '→' : '←'), ' ' + r.summary);
      if (attempt) el.append(attempt);
      if (ms) el.append(ms);
      if (badge) el.append(badge);
    }
    drawn.push(el);
  }
  spacer.replaceChildren(...drawn);
  if (!firstDrawn && drawn.length) {
    firstDrawn = true;
    mark('first-rows');
  }
  const counts = $('counts');
  counts.dataset.rows = rows.length;
  counts.dataset.messages = messages;
  counts.dataset.shown = shownRows;
  counts.dataset.flows = flows.size;
  counts.dataset.findings = findingCount;
  counts.textContent = messages + ' messages · ' + rows.length + ' rows · ' + shownRows + ' shown' +
    (flows.size ? ' · ' + flows.size + ' OAuth flow' + (flows.size > 1 ? 's' : '') : '') +
    ' · ' + findingCount + ' finding' + (findingCount === 1 ? '' : 's');
}

function open(i) {
  picked = i;
  const r = rows[i];
  let html = '<h2>' + esc(r.summary) + '</h2><p class="where">' + esc(r.lane) + ' · ' +
    (r.dir === 'c2s' ? 'client → server' : 'server → client') + ' · +' + r.t.toFixed(6) + 's' +
    (r.era ? ' · ' + esc(r.era) : '') + (r.session ? ' · session ' + esc(r.session) : '') +
    (r.oauth ? ' · OAuth flow ' + r.flow + ': ' + esc(r.oauth) : '') + '</p>';
  if (r.pair !== undefined) {
    const p = rows[r.pair];
    const what = r.shape === 'request' ? 'answered by' : 'answers';
    const ms = (r.ms !== undefined ? r.ms : p.ms);
    html += '<p>' + what + ' <a data-go="' + r.pair + '">' + esc(p.summary) + '</a>' +
      (ms !== undefined ? ' after ' + ms.toFixed(1) + ' ms' : '') + '</p>';
  }
  if (r.retryOf !== undefined) {
    html += '<p class="retry">attempt ' + r.attempt + ' of the operation begun by <a data-go="' + r.op + '">' + esc(rows[r.op].summary) +
      '</a>; it sends back the requestState that <a data-go="' + rows[r.retryOf].pair + '">the answer to attempt ' +
      (rows[r.retryOf].attempt || 1) + '</a> gave (matched exactly)</p>';
  }
  if (r.unlinked) html += '<p class="retry">not linked to an earlier attempt: ' + esc(r.unlinked) + '</p>';
  if (r.opMs !== undefined) html += '<p>the whole operation, from its first attempt: ' + r.opMs.toFixed(1) + ' ms</p>';
  if (r.findings && r.findings.length) {
    html += '<h3>check findings</h3><ul id="found">' + r.findings.map((f) => '<li class="' + esc(f.severity) + '" data-rule="' + esc(f.rule) + '"><b>' +
      esc(f.severity) + ' ' + esc(f.rule) + '</b>: ' + esc(f.message) + ' <span class="spec">(' + esc(f.spec) + ': ' + esc(f.text) + ')</span></li>').join('') + '</ul>';
  }
  if (r.bytes !== undefined) html += '<h3>exact bytes</h3><pre id="bytes">' + marked(r.bytes) + '</pre>';
  if (r.pretty !== undefined) html += '<h3>laid out</h3><pre id="pretty">' + marked(r.pretty) + '</pre>';
  if (r.notes && r.notes.length) html += '<h3>what the spec says</h3><ul>' + r.notes.map((n) => '<li>' + esc(n) + '</li>').join('') + '</ul>';
  // A message the tap holds: forward it, edit it, or drop it.
  if (r.kind === 'intercept' && r.step === 'held') {
    if (r.decided) html += '<p class="hint">decided: ' + esc(r.decided) + '</p>';
    else if (holding) {
      let text = unmarkedText(r.bytes || '');
      try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* sent as it is when forwarded */ }
      html += '<h3>held: decide</h3><p class="hint">the tap holds it (and what follows it this way) until you decide, or for ' + holding.timeout + ' s; then it is forwarded unchanged</p>' +
        '<textarea id="hold-text" rows="10" spellcheck="false">' + esc(text) + '</textarea><p>' +
        '<button id="hold-forward" type="button" data-hold="' + r.hold + '">forward as it came</button> ' +
        '<button id="hold-change" type="button" data-hold="' + r.hold + '">forward as edited</button> ' +
        '<button id="hold-drop" type="button" data-hold="' + r.hold + '">drop</button> <span id="hold-done"></span></p>';
    }
  }
  // Resend (an HTTP tap's page): the message, edited here, sent again through the tap.
  if (resendable && r.kind === 'msg' && r.dir === 'c2s' && r.bytes !== undefined && /^c\d+$/.test(r.lane) && resendRows === 'http') {
    let text = r.bytes;
    try { text = JSON.stringify(JSON.parse(r.bytes), null, 2); } catch (e) { /* not JSON: sent as it is, and refused */ }
    html += '<h3>resend</h3><p class="hint">edit the message and send it again through the tap, with this request\'s headers; its answer arrives as the rows of a new connection</p>' +
      '<textarea id="resend-text" rows="10" spellcheck="false">' + esc(text) + '</textarea><p><button id="resend-go" type="button" data-n="' + r.n + '">send again</button> <span id="resend-said"></span></p>';
  }
  // Resend on a live session (a stdio tap's server, a client's session): a request's JSON.
  if (resendable && resendRows === 'requests' && r.kind === 'msg' && r.dir === 'c2s' && r.shape === 'request' && r.bytes !== undefined) {
    let text = unmarkedText(r.bytes);
    try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON: refused, said */ }
    const how = role === 'client'
      ? 'edit the request and send it again on this client\'s session (with the session\'s next id and its own headers); its answer arrives as a new row'
      : 'edit the request and write it to the server between the client\'s lines (as one line); its answer arrives as a new row and is kept from the client, which never asked. Give it an id the client is not waiting on';
    html += '<h3>resend</h3><p class="hint">' + how + '</p>' +
      '<textarea id="resend-text" rows="10" spellcheck="false">' + esc(text) + '</textarea><p><button id="resend-go" type="button" data-n="' + r.n + '">send again</button> <span id="resend-said"></span></p>';
  }
  $('detail').innerHTML = html;
  $('detail').dataset.n = r.n;
  $('detail').dataset.row = i;
  writeHash();
  queueDraw(false);
}

// Export what is shown, or the whole recording, as a transcript (.jsonl, the lines
// --record writes) or as this page frozen (.html): the page's server writes either
// from the events it keeps; for "what is shown" the page sends the positions of the
// events whose rows its filters keep (the server adds what they need to be read).
function exportAs(kind) {
  const whole = $('ex-what').value === 'whole';
  let ask = {};
  let events = 0;
  if (!whole) {
    const f = filterState();
    const ns = [];
    for (const r of rows) if (!r.gap && keeps(r, f) && ns[ns.length - 1] !== r.n) ns.push(r.n);
    events = ns.length;
    const ranges = [];
    for (let k = 0; k < ns.length;) {
      let j = k;
      while (j + 1 < ns.length && ns[j + 1] === ns[j] + 1) j++;
      ranges.push(j > k ? ns[k] + '-' + ns[j] : String(ns[k]));
      k = j + 1;
    }
    if (!ranges.length) { say('nothing to export: the filters show no row', true); return; }
    ask = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: ranges.join(',') };
  }
  fetch('/export.' + kind + asking, ask)
    .then((r) => (r.ok ? r.blob().then((b) => [b, r.headers.get('content-disposition') || '']) : r.text().then((t) => Promise.reject(t))))
    .then(([blob, disposition]) => {
      const m = /filename="([^"]+)"/.exec(disposition);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = m ? m[1] : 'mcp-raw-export.' + kind;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
      say('exported ' + (whole ? 'the whole recording' : 'the ' + events + ' events shown') + ' as ' + a.download + ' (' + blob.size + ' bytes)', false);
    })
    .catch((why) => say('export refused: ' + why, true));
}

// A line in the status place, said over whatever it said.
function say(text, bad) {
  $('status').textContent = text;
  $('status').className = 'status' + (bad ? ' lost' : '');
}

function titled(h) {
  h = h || {};
  const title = 'mcp-raw: ' + (h.role || '?') + ' over ' + (h.transport || '?') + (h.started ? ', ' + h.started : '');
  $('title').textContent = title;
  document.title = title;
}

// Every row is here: drawn at once (a hidden tab, or a headless one, may not run the
// next frame soon), and said.
function whole(status) {
  draw();
  $('status').textContent = status;
  $('status').className = 'status';
  document.body.dataset.loaded = 'whole';
  console.log('mcp-raw ui: ' + messages + ' messages, ' + rows.length + ' rows');
  if (measuring) measureRest();
}

// After the whole recording: a scroll to its end (drawn, laid out), then one filter
// keystroke over every row, then the heap.
function measureRest() {
  mark('loaded', ' busy ' + busy.toFixed(1));
  const box = $('rows');
  const t0 = performance.now();
  box.scrollTop = box.scrollHeight;
  draw();
  void ($('spacer').lastElementChild || box).getBoundingClientRect(); // the layout, done now
  const t1 = performance.now();
  mark('scrolled', ' took ' + (t1 - t0).toFixed(1));
  $('q').value = 'message 4242';
  refilter();
  const t2 = performance.now();
  $('q').value = '';
  refilter();
  mark('filtered', ' took ' + (t2 - t1).toFixed(1));
  const heap = performance.memory ? performance.memory.usedJSHeapSize : -1;
  mark('done', ' heap ' + heap);
}

// The frozen page: the rows the live stream would have carried, in the file.
function thaw(block) {
  document.body.classList.add('frozen');
  const recording = JSON.parse(block.textContent);
  titled(recording.header);
  const f = filterState();
  for (const r of recording.rows) add(r, f);
  found(recording.findings || []);
  whole('the whole recording (a file: show --html)');
}

// What the page's server can do (resend, holds): asked at the start, and once more
// with the first events, since a program says what it offers a moment after its page
// is up (an HTTP tap knows where it listens only once it has bound), and a page
// opened at once could have asked before.
function askInfo() {
  fetch('/info' + asking)
    .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
    .then((info) => {
      titled(info.header);
      // An open row is drawn again only when what it may offer changed (an edit in
      // progress is not wiped by the second asking).
      const before = JSON.stringify([resendable, resendRows, holding !== null]);
      resendable = info.resend === true;
      resendRows = info.resend_rows || null;
      role = (info.header && info.header.role) || '';
      holding = info.intercept || null;
      if (holding) {
        $('holding').hidden = false;
        if (!$('hold-filter').value) $('hold-filter').value = holding.filter || '';
        if (!$('hold-said').textContent) $('hold-said').textContent = holding.filter ? 'holding ' + holding.filter : 'holding nothing';
      }
      const changed = before !== JSON.stringify([resendable, resendRows, holding !== null]);
      if (changed && (resendable || holding) && picked >= 0) open(picked);
    })
    .catch((status) => { $('status').textContent = 'refused (' + status + '): open the URL printed at start'; $('status').className = 'status lost'; });
}

function connect() {
  askInfo();
  let askedAgain = false;
  const source = new EventSource('/events' + asking);
  source.onopen = () => { $('status').textContent = 'live'; $('status').className = 'status live'; };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) return;
    $('status').textContent = 'reconnecting…';
    $('status').className = 'status lost';
  };
  source.onmessage = (e) => {
    const t0 = measuring ? performance.now() : 0;
    const batch = JSON.parse(e.data);
    const f = filterState();
    for (const r of batch.rows) add(r, f);
    if (batch.findings) found(batch.findings);
    if (!askedAgain) { askedAgain = true; askInfo(); }
    queueDraw(true);
    if (measuring) busy += performance.now() - t0;
  };
  // Events the server let go before this page read them (--ui-keep): said as a row.
  source.addEventListener('gap', (e) => {
    const g = JSON.parse(e.data);
    add({ n: g.from, gap: true, t: rows.length ? rows[rows.length - 1].t : 0, lane: '', dir: '', kind: 'odd', error: true,
      summary: 'events ' + g.from + '–' + (g.to - 1) + ' were let go before this page read them (the server keeps ' + g.keep + ', --ui-keep); the --record file has them' });
    queueDraw(true);
  });
  // The recording is whole (a file, not followed): nothing more will come.
  source.addEventListener('end', (e) => {
    source.close();
    found(JSON.parse(e.data).findings || []);
    whole('the whole recording');
  });
}

readHash();
for (const k of FILTERS) $(k).addEventListener('input', refilter);
$('as-list').onclick = () => { view = 'list'; writeHash(); queueDraw(false); };
$('as-seq').onclick = () => { view = 'sequence'; writeHash(); queueDraw(false); };
$('ex-jsonl').onclick = () => exportAs('jsonl');
$('ex-html').onclick = () => exportAs('html');
$('rows').addEventListener('scroll', () => queueDraw(false));
$('rows').addEventListener('click', (e) => {
  const el = e.target.closest('.row');
  if (!el) return;
  if (el.dataset.flow) {
    const n = Number(el.dataset.flow);
    if (folded.has(n)) folded.delete(n);
    else folded.add(n);
    refilter();
    return;
  }
  open(Number(el.dataset.i));
});
// Resend: POST /resend with the event and the edited text; the tap records what is sent.
function resend(button) {
  const said = $('resend-said');
  said.textContent = 'sending…';
  fetch('/resend' + asking, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: Number(button.dataset.n), message: $('resend-text').value }) })
    .then((r) => (r.ok ? r.json() : r.text().then((t) => Promise.reject(t))))
    .then((a) => {
      if (a.from !== undefined) {
        said.textContent = 'sent from ' + a.from + ': its rows follow on a new connection' + (a.warning ? ' (' + a.warning + ')' : '');
        document.body.dataset.resent = a.from;
      } else {
        said.textContent = (a.resend !== undefined ? 'resend #' + a.resend + ' written' : 'sent as id ' + a.id) +
          (a.answered === false ? '; no answer came' : '; its answer is a new row');
        document.body.dataset.resent = a.id;
      }
      said.className = a.warning ? 'lost' : '';
    })
    .catch((why) => { said.textContent = 'refused: ' + why; said.className = 'lost'; });
}

// The marks of a row's bytes read back as the characters they stand for.
function unmarkedText(s) {
  return s.replace(/␍/g, '\r').replace(/⟨BOM⟩/g, '\ufeff').replace(/⟨([0-9a-f]{2,6})⟩/g, (m, hex) => String.fromCodePoint(parseInt(hex, 16)));
}

// A held message decided: POST /intercept; the tap's next row says what it did.
function decide(button, action) {
  const ask = { hold: Number(button.dataset.hold), action };
  if (action === 'change') ask.message = $('hold-text').value;
  // The detail may be drawn again meanwhile (the tap's row saying what it did).
  const said = (text) => { const el = $('hold-done'); if (el) el.textContent = text; };
  said('sending…');
  fetch('/intercept' + asking, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ask) })
    .then((r) => (r.ok ? r.json() : r.text().then((t) => Promise.reject(t))))
    .then(() => said('told the tap: ' + action))
    .catch((why) => said('refused: ' + why));
}

function setHoldFilter() {
  fetch('/intercept/filter' + asking, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ filter: $('hold-filter').value }) })
    .then((r) => (r.ok ? r.json() : r.text().then((t) => Promise.reject(t))))
    .then((a) => { $('hold-said').textContent = a.filter ? 'holding ' + a.filter : 'holding nothing'; })
    .catch((why) => { $('hold-said').textContent = 'refused: ' + why; });
}

$('hold-set').onclick = setHoldFilter;
$('detail').addEventListener('click', (e) => {
  if (e.target.id === 'resend-go') { resend(e.target); return; }
  if (e.target.id === 'hold-forward') { decide(e.target, 'forward'); return; }
  if (e.target.id === 'hold-change') { decide(e.target, 'change'); return; }
  if (e.target.id === 'hold-drop') { decide(e.target, 'drop'); return; }
  const go = e.target.closest('[data-go]');
  if (!go) return;
  const i = Number(go.dataset.go);
  open(i);
  const k = shown.indexOf(i);
  if (k >= 0) $('rows').scrollTop = k * ROW;
});
window.addEventListener('resize', () => queueDraw(false));
if ($('recording')) thaw($('recording'));
else connect();
