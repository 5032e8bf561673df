// lockstep viewer page logic (docs/viewer.md). The page asks one small interface, a backend
// { info, seek(tick) → Promise<frame>, entity(side, slot, tick) → Promise<answer> }, answered by one
// of three: the wasm module (lv_load/lv_seek/lv_entity, the page re-simulates), the frames
// `lockstep view -o` embedded (precomputed by the tool), or the tool itself over HTTP
// (`lockstep view --serve`: /api/info, /api/seek, /api/entity). All answer the same JSON
// (viewer::Session). Draws with a 2-D canvas. Floating point here is display only: hashes and
// states come from the Session's Runner, bit for bit.
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
    seek: (t) => show(t).then(() => hook.state()),
    select: (slot) => select(0, slot).then(() => hook.selected),
    state: () => ({ tick: hook.tick, hash: hook.hash, hashes: hook.hashes, diverged: hook.diverged,
                    error: hook.error, note: hook.note, backend: hook.backend, stride: B ? (B.stride || 1) : 1,
                    entities: hook.frame ? hook.frame.sides.map((s) => s.entities.length) : [],
                    drawn: hook.frame ? hook.frame.sides.map((s) => s.entities.filter((e) => e[3] !== null).length) : [],
                    listed: document.querySelectorAll('#list .ent').length }),
  };

  let B = null, info = null, frame = null, tick = 0, timer = null, selected = null;
  const bounds = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };

  function status(text, isError) {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : '';
    if (isError) hook.error = text;
  }
  // ---- backends -------------------------------------------------------------------------
  // The wasm module: the page itself re-simulates (answers are synchronous).
  function wasmBackend(M, data) {
    const call = (fn, ...args) => JSON.parse(M.UTF8ToString(fn(...args)));
    const bytes = Uint8Array.from(atob(data.bytes), (c) => c.charCodeAt(0));
    const buf = M._malloc(bytes.length + 1);
    M.HEAPU8.set(bytes, buf);
    const nameBytes = new TextEncoder().encode(data.name);
    const nbuf = M._malloc(nameBytes.length + 1);
    M.HEAPU8.set(nameBytes, nbuf);
    M.HEAPU8[nbuf + nameBytes.length] = 0;
    const loaded = call(M._lv_load, buf, bytes.length, nbuf);
    M._free(buf);
    M._free(nbuf);
    return {
      kind: 'wasm', info: loaded, name: data.name, note: '',
      status: 'hashes computed in the browser by the same Runner as the CLI (wasm32)',
      seek: (t) => Promise.resolve(call(M._lv_seek, t >>> 0, Math.floor(t / 4294967296))),
      entity: (side, slot) => Promise.resolve(call(M._lv_entity, side, slot)),
    };
  }

  // Frames the tool computed and embedded (every tick, or keyframes: the frame at or before t).
  function embeddedBackend(data) {
    const ticks = data.ticks;
    const at = (t) => {
      let lo = 0, hi = ticks.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ticks[mid] <= t) lo = mid; else hi = mid - 1; }
      return lo;
    };
    let current = 0;
    return {
      kind: 'embedded', info: data.info, name: data.info.name, note: data.note, stride: data.stride,
      status: 'frames computed by the tool (lockstep view) and embedded in this page',
      seek: (t) => { current = at(t); return Promise.resolve(data.frames[current]); },
      entity: (side, slot) => {
        const f = data.frames[current], d = data.details[current];
        const list = f.sides[side] ? f.sides[side].entities : [];
        const i = list.findIndex((e) => e[0] === slot);
        if (i < 0) return Promise.resolve({ ok: false, error: 'slot ' + slot + ' is not a live entity at tick ' + f.tick });
        const e = list[i], values = d.sides[side][i], schema = d.schema[side][String(e[2])] || [];
        const diff = f.diff ? f.diff.entries : [];
        let k = 0;
        const components = schema.map(([name, fields]) => ({ name, fields: fields.map((fname) => ({
          name: fname, value: values[k++],
          // Same rule as Session::entity: a component-field entry of this slot.
          differs: diff.some((x) => x.kind === 'component' && x.slot === slot && x.part === name && x.field === fname),
        })) }));
        return Promise.resolve({ ok: true, side, slot, generation: e[1], archetype: e[2], components });
      },
    };
  }

  // The tool over HTTP (`lockstep view --serve`), same origin.
  function httpBackend(loaded) {
    const get = (path) => fetch(path, { cache: 'no-store' }).then((r) => r.json());
    return {
      kind: 'http', info: loaded, name: loaded.name, note: '',
      status: 'frames computed by the tool serving this page (lockstep view --serve)',
      seek: (t) => get('api/seek?tick=' + t),
      entity: (side, slot, t) => get('api/entity?side=' + side + '&slot=' + slot + '&tick=' + t),
    };
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
    side.entities.forEach((e, i) => {
      if (e[3] === null) return;
      const x = e[3] / 65536, y = e[4] / 65536, r = side.radii && side.radii[i] !== null ? Math.abs(side.radii[i] / 65536) : 0;
      bounds.x0 = Math.min(bounds.x0, x - r); bounds.x1 = Math.max(bounds.x1, x + r);
      bounds.y0 = Math.min(bounds.y0, y - r); bounds.y1 = Math.max(bounds.y1, y + r);
    });
  }
  function scale() {
    const pad = 24, w = Math.max(bounds.x1 - bounds.x0, 1e-9), h = Math.max(bounds.y1 - bounds.y0, 1e-9);
    return (SIZE - 2 * pad) / Math.max(w, h);
  }
  function project(e) {
    // Same scale on both axes; the smaller extent is centred.
    const pad = 24, w = Math.max(bounds.x1 - bounds.x0, 1e-9), h = Math.max(bounds.y1 - bounds.y0, 1e-9);
    const s = scale();
    const ox = pad + (SIZE - 2 * pad - w * s) / 2, oy = pad + (SIZE - 2 * pad - h * s) / 2;
    return [ox + (e[3] / 65536 - bounds.x0) * s, SIZE - oy - (e[4] / 65536 - bounds.y0) * s];
  }

  function draw() {
    const diverged = new Set(frame.diverged);
    const s = scale();
    frame.sides.forEach((side, i) => {
      $('label' + i).textContent = side.label + ' — tick ' + side.tick + ' — ' + side.live + ' entities' +
        (side.position ? '' : ' (no drawing hint: entities listed below)') + (side.draw_problem ? ' — ' + side.draw_problem : '');
      const ctx = $('canvas' + i).getContext('2d');
      ctx.fillStyle = '#fbfbf8';
      ctx.fillRect(0, 0, SIZE, SIZE);
      const drawn = side.entities.filter((e) => e[3] !== null);
      const labels = side.labels && drawn.length <= 150;  // beyond that the text is noise
      side.entities.forEach((e, k) => {
        if (e[3] === null) return;
        const [x, y] = project(e);
        ctx.fillStyle = e[5] >= 0 ? TEAM[e[5] % TEAM.length] : ARCH[e[2] % ARCH.length];
        const r = side.radii && side.radii[k] !== null ? Math.max(2, Math.abs(side.radii[k] / 65536) * s) : 0;
        if (r) { ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.fill(); }
        else ctx.fillRect(x - 2, y - 2, 4, 4);
        if (labels && side.labels[k] !== null) { ctx.fillStyle = '#333'; ctx.font = '10px sans-serif'; ctx.fillText(side.labels[k], x + 4, y + 12); }
      });
      for (const e of drawn) {
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
      $('canvas' + i).hidden = drawn.length === 0 && !side.position;
    });
    listPanel();
  }

  // Without a drawing hint (or for entities without a position): the entities as a list,
  // diverged ones first, each clickable. Capped: a list of 10,000 links helps nobody.
  function listPanel() {
    const side = frame.sides[0];
    const text = new Map();
    side.entities.forEach((e, k) => { if (side.labels && side.labels[k] !== null) text.set(e[0], side.labels[k]); });
    const undrawn = side.entities.filter((e) => e[3] === null);
    if (!undrawn.length) { $('listbox').hidden = true; return; }
    $('listbox').hidden = false;
    const diverged = new Set(frame.diverged);
    undrawn.sort((a, b) => (diverged.has(b[0]) - diverged.has(a[0])) || (a[0] - b[0]));
    const cap = 500;
    let html = '<div>' + undrawn.length + ' entities' + (side.position ? ' without ' + esc(side.position) : '') + '</div>';
    for (const e of undrawn.slice(0, cap))
      html += '<a href="#" class="ent' + (diverged.has(e[0]) ? ' bad' : '') + '" data-slot="' + e[0] + '">' + e[0] + ':' + e[1] +
              (text.has(e[0]) ? ' ' + esc(text.get(e[0])) : '') + '</a> ';
    if (undrawn.length > cap) html += '<div>(' + (undrawn.length - cap) + ' more: seek or use lockstep dump)</div>';
    $('list').innerHTML = html;
    for (const a of $('list').querySelectorAll('a.ent'))
      a.onclick = (ev) => { ev.preventDefault(); select(0, Number(a.dataset.slot)); };
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
    return Promise.all(frame.sides.map((s, i) => B.entity(i, slot, frame.tick))).then((answers) => {
      let html = '';
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
    });
  }

  function pick(side, ev) {
    const rect = ev.target.getBoundingClientRect();
    const px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    let best = null, bestD = 100;
    for (const e of frame.sides[side].entities) {
      if (e[3] === null) continue;
      const [x, y] = project(e);
      const d = (x - px) * (x - px) + (y - py) * (y - py);
      if (d < bestD) { bestD = d; best = e[0]; }
    }
    if (best !== null) select(side, best);
  }

  // One seek in flight at a time; while it runs, only the latest request is kept (a dragged
  // slider asks for hundreds of ticks; over HTTP each answer is a round trip).
  let busy = null, wanted = null;
  function show(t) {
    t = Math.max(info.first_tick, Math.min(info.last_tick, t));
    if (busy) { wanted = t; return busy; }
    busy = B.seek(t).then((r) => {
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
      if (selected !== null) return select(0, selected);
    }, (e) => { status('viewer: ' + e, true); stop(); }).then(() => {
      busy = null;
      if (wanted !== null) { const w = wanted; wanted = null; return show(w); }
    });
    return busy;
  }

  function stop() { if (timer) { clearInterval(timer); timer = null; } $('play').innerHTML = '&#9654;'; }
  function play() {
    if (timer) { stop(); return; }
    if (tick >= info.last_tick) show(info.first_tick);
    $('play').innerHTML = '&#10073;&#10073;';
    const hz = info.tick_hz * Number($('speed').value);
    // Above ~60 frames a second, several ticks per timer callback.
    const per = Math.max(B.stride || 1, Math.round(hz / 60)), every = 1000 * per / hz;
    timer = setInterval(() => { if (tick >= info.last_tick) { stop(); return; } show(tick + per); }, every);
  }

  function start(backend) {
    B = backend;
    info = B.info;
    hook.backend = B.kind;
    hook.note = B.note || '';
    if (!info.ok) { status(info.error, true); hook.ready = true; return; }
    hook.info = info;
    $('title').textContent = String(B.name).split(/[\/]/).pop();
    $('subtitle').textContent = info.kind + (info.sim ? ' · sim ' + info.sim : '') +
      (info.kind === 'replay' ? ' · ' + info.players + ' players · ticks 0..' + info.last_tick +
       (info.checkpoints.length ? ' · checkpoints every ' + (info.checkpoints[1] - info.checkpoints[0] || info.checkpoints[0]) : ' · no checkpoints') : '') +
      (info.kind === 'bundle' ? ' · ' + info.source + ' · first divergent tick ' + info.divergent_tick + (info.system ? ' · system ' + info.system : '') : '');
    $('slider').min = String(info.first_tick);
    $('slider').max = String(info.last_tick);
    if (B.stride > 1) $('slider').step = String(B.stride);
    $('range').textContent = '/ ' + info.last_tick;
    $('note').textContent = B.note || '';
    $('note').hidden = !B.note;
    const still = info.first_tick === info.last_tick;
    for (const id of ['play', 'back', 'fwd', 'slider', 'tickbox']) $(id).disabled = still;
    const step = () => B.stride || 1;
    $('play').onclick = play;
    $('back').onclick = () => { stop(); show(tick - step()); };
    $('fwd').onclick = () => { stop(); show(tick + step()); };
    $('slider').oninput = () => { stop(); show(Number($('slider').value)); };
    $('tickbox').onchange = () => { stop(); show(Number($('tickbox').value)); };
    $('speed').onchange = () => { if (timer) { stop(); play(); } };
    document.addEventListener('keydown', (ev) => {
      if (ev.target.tagName === 'INPUT') return;
      if (ev.key === ' ') { ev.preventDefault(); play(); }
      if (ev.key === 'ArrowLeft') { stop(); show(tick - step()); }
      if (ev.key === 'ArrowRight') { stop(); show(tick + step()); }
    });
    return show(info.first_tick).then(() => {
      if (!hook.error) status(B.status);
      hook.ready = true;
    });
  }

  const failed = (what) => (e) => { status(what + e, true); hook.ready = true; };
  const text = $('lockstep-data').textContent.trim();
  if (text.charAt(0) !== '{') { status('this page has no file in it: generate one with `lockstep view FILE -o page.html`', true); hook.ready = true; return; }
  let data;
  try { data = JSON.parse(text); } catch (e) { failed('viewer: ')(e); return; }
  if (data.mode === 'embedded') {
    Promise.resolve().then(() => start(embeddedBackend(data))).catch(failed('viewer: '));
  } else if (data.mode === 'http') {
    fetch('api/info', { cache: 'no-store' }).then((r) => r.json())
      .then((loaded) => start(httpBackend(loaded))).catch(failed('cannot reach the lockstep tool serving this page (stopped?): '));
  } else if (typeof LockstepViewerModule === 'function') {
    LockstepViewerModule().then((mod) => start(wasmBackend(mod, data)), failed('cannot start the wasm module: '))
      .catch(failed('viewer: '));
  } else {
    failed('viewer: ')('this page has neither frames nor the wasm module');
  }
})();
