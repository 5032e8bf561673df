// lockstep viewer page logic (docs/viewer.md). Talks to the wasm module through three calls
// (lv_load, lv_seek, lv_entity) that answer JSON; draws with a 2-D canvas. Floating point here
// is display only: hashes and states come from the wasm module's Runner, bit for bit.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const TEAM = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7'];
  const ARCH = ['#8c8c8c', '#4e79a7', '#59a14f', '#edc948', '#b07aa1', '#76b7b2', '#ff9da7', '#9c755f'];
  let SIZE = 560;  // canvas side in pixels; smaller when two sides share the row

  // Test hook (tests/viewer/browser_test.py): what the page shows, in machine form.
  const hook = window.lockstepTest = {
    ready: false, error: null, info: null, frame: null,
    tick: null, hash: null, hashes: [], diverged: [], selected: null,
    seek: (t) => { show(t); return hook.state(); },
    select: (slot) => { select(0, slot); return hook.selected; },
    state: () => ({ tick: hook.tick, hash: hook.hash, hashes: hook.hashes, diverged: hook.diverged,
                    error: hook.error, entities: hook.frame ? hook.frame.sides.map((s) => s.entities.length) : [] }),
  };

  let M = null, info = null, frame = null, tick = 0, timer = null, selected = null;
  const bounds = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };

  function status(text, isError) {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : '';
    if (isError) hook.error = text;
  }
  function call(fn, ...args) { return JSON.parse(M.UTF8ToString(fn(...args))); }

  function load(name, bytes) {
    const buf = M._malloc(bytes.length + 1);
    M.HEAPU8.set(bytes, buf);
    const nameBytes = new TextEncoder().encode(name);
    const nbuf = M._malloc(nameBytes.length + 1);
    M.HEAPU8.set(nameBytes, nbuf);
    M.HEAPU8[nbuf + nameBytes.length] = 0;
    const r = call(M._lv_load, buf, bytes.length, nbuf);
    M._free(buf);
    M._free(nbuf);
    return r;
  }

  function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

  function setupViews() {
    const views = $('views');
    views.innerHTML = '';
    SIZE = frame.sides.length > 1 ? 430 : 560;
    frame.sides.forEach((side, i) => {
      const div = document.createElement('div');
      div.className = 'view';
      div.innerHTML = '<h3 id="label' + i + '"></h3>';
      const c = document.createElement('canvas');
      c.width = c.height = SIZE;
      c.id = 'canvas' + i;
      c.addEventListener('click', (ev) => pick(i, ev));
      div.appendChild(c);
      views.appendChild(div);
    });
  }

  function grow(side) {
    for (const e of side.entities) {
      const x = e[3] / 65536, y = e[4] / 65536;
      bounds.x0 = Math.min(bounds.x0, x); bounds.x1 = Math.max(bounds.x1, x);
      bounds.y0 = Math.min(bounds.y0, y); bounds.y1 = Math.max(bounds.y1, y);
    }
  }
  function project(e) {
    // Same scale on both axes; the smaller extent is centred.
    const pad = 24, w = Math.max(bounds.x1 - bounds.x0, 1e-9), h = Math.max(bounds.y1 - bounds.y0, 1e-9);
    const s = (SIZE - 2 * pad) / Math.max(w, h);
    const ox = pad + (SIZE - 2 * pad - w * s) / 2, oy = pad + (SIZE - 2 * pad - h * s) / 2;
    return [ox + (e[3] / 65536 - bounds.x0) * s, SIZE - oy - (e[4] / 65536 - bounds.y0) * s];
  }

  function draw() {
    const diverged = new Set(frame.diverged);
    frame.sides.forEach((side, i) => {
      $('label' + i).textContent = side.label + ' — tick ' + side.tick + ' — ' + side.live + ' entities' +
        (side.position ? '' : ' (no position field marked: nothing to draw)');
      const ctx = $('canvas' + i).getContext('2d');
      ctx.fillStyle = '#fbfbf8';
      ctx.fillRect(0, 0, SIZE, SIZE);
      for (const e of side.entities) {
        const [x, y] = project(e);
        ctx.fillStyle = e[5] >= 0 ? TEAM[e[5] % TEAM.length] : ARCH[e[2] % ARCH.length];
        ctx.fillRect(x - 2, y - 2, 4, 4);
      }
      for (const e of side.entities) {
        const [x, y] = project(e);
        if (diverged.has(e[0])) {
          ctx.strokeStyle = '#d00'; ctx.lineWidth = 2.5;
          ctx.beginPath(); ctx.arc(x, y, 9, 0, 2 * Math.PI); ctx.stroke();
          ctx.fillStyle = '#d00'; ctx.font = 'bold 12px sans-serif';
          ctx.fillText(String(e[0]), x + 11, y - 6);
        }
        if (selected !== null && e[0] === selected) {
          ctx.strokeStyle = '#000'; ctx.lineWidth = 1.5;
          ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.stroke();
        }
      }
    });
  }

  function hashPanel() {
    let html = '';
    frame.sides.forEach((side, i) => {
      const h = side.hash;
      if (frame.sides.length > 1) html += '<div><b>' + esc(side.label) + '</b></div>';
      if (!h) { html += '<div><em>snapshot file: no hash recorded</em></div>'; return; }
      const other = frame.sides.length > 1 ? frame.sides[1 - i].hash : null;
      let rec = '';
      if (h.recorded) rec = h.recorded === h.total ? ' <span class="ok">= recorded</span>' : ' <span class="bad">&#8800; recorded ' + h.recorded + '</span>';
      html += '<div class="total" id="hash-total' + i + '">' + h.total + '</div>' + rec + '<table>';
      const row = (name, v, o) => '<tr' + (o !== undefined && o !== v ? ' class="bad"' : '') + '><td>' + esc(name) + '</td><td>' + v + '</td></tr>';
      html += row('entities', h.entities, other ? other.entities : undefined);
      html += row('archetypes', h.archetypes, other ? other.archetypes : undefined);
      html += row('resources', h.resources, other ? other.resources : undefined);
      h.components.forEach((c, k) => { html += row(c.name, c.hash, other && other.components[k] ? other.components[k].hash : undefined); });
      html += '</table>';
    });
    $('hash').innerHTML = html;
  }

  function diffPanel() {
    if (!frame.diff) { $('diffbox').hidden = true; return; }
    $('diffbox').hidden = false;
    const d = frame.diff;
    let html = '<div>' + d.total + ' difference(s); diverged entities: <b id="diverged">' + frame.diverged.join(', ') + '</b></div><table>';
    for (const e of d.entries.slice(0, 200)) html += '<tr class="bad"><td>' + esc(e.where) + '</td><td>' + esc(e.a) + ' | ' + esc(e.b) + '</td></tr>';
    html += '</table>';
    if (d.entries.length > 200) html += '<div>(' + (d.entries.length - 200) + ' more)</div>';
    $('diff').innerHTML = html;
  }

  function select(side, slot) {
    selected = slot;
    let html = '';
    const answers = frame.sides.map((s, i) => call(M._lv_entity, i, slot));
    hook.selected = answers;
    answers.forEach((a, i) => {
      if (frame.sides.length > 1) html += '<div><b>' + esc(frame.sides[i].label) + '</b></div>';
      if (!a.ok) { html += '<div>' + esc(a.error) + '</div>'; return; }
      html += '<div>entity <b>' + a.slot + ':' + a.generation + '</b> (archetype ' + a.archetype + ')</div><table>';
      for (const c of a.components)
        for (const f of c.fields)
          html += '<tr' + (f.differs ? ' class="bad"' : '') + '><td>' + esc(c.name + '.' + f.name) + '</td><td>' + esc(f.value) + '</td></tr>';
      html += '</table>';
    });
    $('entity').innerHTML = html;
    draw();
  }

  function pick(side, ev) {
    const rect = ev.target.getBoundingClientRect();
    const px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    let best = null, bestD = 100;
    for (const e of frame.sides[side].entities) {
      const [x, y] = project(e);
      const d = (x - px) * (x - px) + (y - py) * (y - py);
      if (d < bestD) { bestD = d; best = e[0]; }
    }
    if (best !== null) select(side, best);
  }

  function show(t) {
    t = Math.max(info.first_tick, Math.min(info.last_tick, t));
    const r = call(M._lv_seek, t >>> 0, Math.floor(t / 4294967296));
    if (!r.ok) { status(r.error, true); stop(); return; }
    const first = frame === null;
    frame = r;
    tick = r.tick;
    if (first) setupViews();
    frame.sides.forEach(grow);
    hook.frame = frame;
    hook.tick = frame.tick;
    hook.hashes = frame.sides.map((s) => (s.hash ? s.hash.total : null));
    hook.hash = hook.hashes[0];
    hook.diverged = frame.diverged.slice();
    $('slider').value = String(tick);
    $('tickbox').value = String(tick);
    draw();
    hashPanel();
    diffPanel();
    if (selected !== null) select(0, selected);
  }

  function stop() { if (timer) { clearInterval(timer); timer = null; } $('play').innerHTML = '&#9654;'; }
  function play() {
    if (timer) { stop(); return; }
    if (tick >= info.last_tick) show(info.first_tick);
    $('play').innerHTML = '&#10073;&#10073;';
    const hz = info.tick_hz * Number($('speed').value);
    // Above ~60 frames a second, several ticks per timer callback.
    const per = Math.max(1, Math.round(hz / 60)), every = 1000 * per / hz;
    timer = setInterval(() => { if (tick >= info.last_tick) { stop(); return; } show(tick + per); }, every);
  }

  function start(data) {
    const bytes = Uint8Array.from(atob(data.bytes), (c) => c.charCodeAt(0));
    info = load(data.name, bytes);
    if (!info.ok) { status(info.error, true); hook.ready = true; return; }
    hook.info = info;
    $('title').textContent = data.name;
    $('subtitle').textContent = info.kind + (info.sim ? ' · sim ' + info.sim : '') +
      (info.kind === 'replay' ? ' · ' + info.players + ' players · ticks 0..' + info.last_tick +
       (info.checkpoints.length ? ' · checkpoints every ' + (info.checkpoints[1] - info.checkpoints[0] || info.checkpoints[0]) : ' · no checkpoints') : '') +
      (info.kind === 'bundle' ? ' · ' + info.source + ' · first divergent tick ' + info.divergent_tick + (info.system ? ' · system ' + info.system : '') : '');
    $('slider').min = String(info.first_tick);
    $('slider').max = String(info.last_tick);
    $('range').textContent = '/ ' + info.last_tick;
    const still = info.first_tick === info.last_tick;
    for (const id of ['play', 'back', 'fwd', 'slider', 'tickbox']) $(id).disabled = still;
    $('play').onclick = play;
    $('back').onclick = () => { stop(); show(tick - 1); };
    $('fwd').onclick = () => { stop(); show(tick + 1); };
    $('slider').oninput = () => { stop(); show(Number($('slider').value)); };
    $('tickbox').onchange = () => { stop(); show(Number($('tickbox').value)); };
    $('speed').onchange = () => { if (timer) { stop(); play(); } };
    document.addEventListener('keydown', (ev) => {
      if (ev.target.tagName === 'INPUT') return;
      if (ev.key === ' ') { ev.preventDefault(); play(); }
      if (ev.key === 'ArrowLeft') { stop(); show(tick - 1); }
      if (ev.key === 'ArrowRight') { stop(); show(tick + 1); }
    });
    show(info.first_tick);
    status(info.kind === 'replay' ? 'hashes computed in the browser by the same Runner as the CLI (wasm32)' : '');
    hook.ready = true;
  }

  const text = $('lockstep-data').textContent.trim();
  if (text.charAt(0) !== '{') { status('this page has no file in it: generate one with `lockstep view FILE -o page.html`', true); hook.ready = true; return; }
  LockstepViewerModule().then((mod) => {
    M = mod;
    try { start(JSON.parse(text)); } catch (e) { status('viewer: ' + e, true); hook.ready = true; }
  }, (e) => { status('cannot start the wasm module: ' + e, true); hook.ready = true; });
})();
