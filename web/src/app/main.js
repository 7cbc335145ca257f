// Viewer page: wires the DOM to the App and the Viewer, loads the demo, exposes a test hook.
import { sharedDecoder } from '../decoder/client.js';
import { App } from './app.js';
import { entriesFromDataTransfer, entriesFromFileList } from './input.js';
import { entriesFromUrls } from '../core/input.js';
import { describeRecord, isProblem } from '../core/report.js';
import { displayName } from '../core/files.js';
import { renderClipList, renderFilesReport, renderInfo, renderMorphs } from './panels.js';
import { el } from './dom.js';
import { Viewer } from './viewer.js';
import { applyState, buildQuery, currentState, readParams } from './params.js';
import { Inspector } from './inspect.js';
import { Messages } from './messages.js';
import { setBaseColourOnly } from '../three/material-maps.js';
import { renderOutliner } from './outliner.js';

const $ = (id) => document.getElementById(id);
const params = readParams();
const viewer = new Viewer($('stage'));
const app = new App(viewer, sharedDecoder());

const messages = new Messages($('messages'), () => app.messages());
const showError = (text) => messages.add(text);

function status(text) { $('status').textContent = displayName(text); }
function fetchProgress({ url, got, total }) {
  status(`Fetching ${url.split('/').pop()}: ${total ? `${Math.round((got / total) * 100)}%` : `${(got / 1e6).toFixed(1)} MB`}`);
  progress(got, total);
}
function progress(done, total) {
  const bar = $('progress');
  bar.hidden = !(total > 0) || done >= total;
  bar.max = total || 1;
  bar.value = done;
}

// URLs of files that came from the web: only those can go into a shared link.
const sourceUrls = [];
let localFiles = 0;

// Cancel stops the whole batch: the file in flight (its worker is replaced) and every file after it.
let cancelled = false;
async function load(getEntries, label, { demo = false } = {}) {
  cancelled = false;
  $('cancel-button').hidden = false;
  status(`Reading ${label}…`);
  try {
    const entries = await getEntries();
    const report = await app.loadFiles(entries, {
      demo,
      replace: !demo && $('drop-mode').value === 'replace',
      isCancelled: () => cancelled,
      onProgress: ({ done, total, name }) => { status(`Decoding ${done}/${total}: ${name}`); progress(done, total); },
    });
    const problems = report.records.filter(isProblem).length;
    status(`${entries.length} file${entries.length === 1 ? '' : 's'} read${problems ? `; ${problems} problem${problems === 1 ? '' : 's'} (see Files)` : ''}`);
    messages.render();
  } catch (err) {
    showError(err.message);
    status('');
  } finally {
    $('cancel-button').hidden = true;
    progress(0, 0);
  }
}

// Drop anywhere on the page.
const stage = $('stage');
addEventListener('dragover', (e) => { e.preventDefault(); stage.classList.add('dragging'); });
addEventListener('dragleave', (e) => { if (e.target === document.documentElement || !e.relatedTarget) stage.classList.remove('dragging'); });
addEventListener('drop', (e) => {
  e.preventDefault();
  stage.classList.remove('dragging');
  const dt = e.dataTransfer;
  // The items list is only readable during the event: collect before awaiting.
  const pending = entriesFromDataTransfer(dt);
  localFiles += dt.files.length || 1;
  load(() => pending, 'dropped files');
});
$('file-input').addEventListener('change', (e) => {
  const files = [...e.target.files];
  e.target.value = '';
  localFiles += files.length;
  load(() => entriesFromFileList(files), 'files');
});
$('folder-input').addEventListener('change', (e) => {
  const files = [...e.target.files];
  e.target.value = '';
  localFiles += files.length;
  load(() => entriesFromFileList(files), 'folder');
});
$('folder-button').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('folder-input').click(); } });
$('open-button').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('file-input').click(); } });
$('clear-button').addEventListener('click', () => {
  app.clear();
  sourceUrls.length = 0;
  localFiles = 0;
  messages.clear();
  status('');
});

// Export, screenshot, links.
function download(blob, name) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
$('export-button').addEventListener('click', async () => {
  if (!app.characters.length) return showError('Nothing to export: load a model first');
  status('Exporting GLB…');
  try {
    const { exportGLB } = await import('../three/export.js');
    const { glb, problems } = await exportGLB(app.characters, { decoder: app.decoder });
    download(new Blob([glb], { type: 'model/gltf-binary' }), `${app.characters[0].name.replace(/\.[^.]*$/, '')}.glb`);
    status(`Exported ${(glb.byteLength / 1024).toFixed(0)} KB`);
    for (const p of problems) showError(`Export: ${p}`);
  } catch (err) {
    showError(`Export failed: ${err.message}`);
  }
});
$('screenshot-button').addEventListener('click', () => {
  viewer.render();
  viewer.renderer.domElement.toBlob((blob) => download(blob, 'rigscope.png'), 'image/png');
});
function share(kind) {
  const query = buildQuery(currentState(app, viewer, sourceUrls));
  const page = kind === 'embed' ? 'embed.html' : 'index.html';
  const url = new URL(`${page}${query ? `?${query}` : ''}`, location.href).href;
  $('share-text').value = kind === 'embed'
    ? `<iframe src="${url}" width="640" height="480" style="border:0" allow="fullscreen" title="Rigscope player"></iframe>`
    : url;
  $('share-note').textContent = localFiles > 0
    ? `${localFiles} file(s) were opened from this computer: a link can only carry files that are hosted on the web (a wiki's file server, GitHub…). Host them, then open them with ?file=URL.`
    : 'The link reopens the same files, clip, frame and camera.';
  $('share-title').textContent = kind === 'embed' ? 'Embed code' : 'Link to this view';
  $('share-dialog').showModal();
  $('share-text').select();
}
$('link-button').addEventListener('click', () => share('link'));
$('embed-button').addEventListener('click', () => share('embed'));
$('share-copy').addEventListener('click', () => navigator.clipboard?.writeText($('share-text').value).catch(() => {}));
$('help-button').addEventListener('click', () => $('help-dialog').showModal());
$('url-button').addEventListener('click', () => $('url-dialog').showModal());
$('url-dialog').addEventListener('close', () => {
  if ($('url-dialog').returnValue !== 'open') return;
  const urls = [];
  for (const u of $('url-text').value.split(/\s+/).filter(Boolean)) {
    try { urls.push(new URL(u, location.href).href); } catch { showError(`${u} is not a web address`); }
  }
  if (!urls.length) return;
  sourceUrls.push(...urls);
  load(() => entriesFromUrls(urls, fetchProgress), 'links');
});
$('cancel-button').addEventListener('click', () => {
  cancelled = true;
  sharedDecoder().cancel('Decoding was cancelled; files already loaded stay');
});

// Panels.
const refreshClips = () => renderClipList($('clip-list'), app, $('clip-search').value);
const inspector = new Inspector(app, viewer, { tree: $('bone-tree'), detail: $('bone-detail'), materials: $('materials'), stats: $('stats') });
$('clip-search').addEventListener('input', refreshClips);
const frameOn = (c) => viewer.frameAll(c === app.current?.character ? app.clipBounds([c]) : viewer.visibleBounds([c]));
app.on((what) => {
  refreshClips();
  if (what !== 'time') renderOutliner($('outliner'), app, { onFrame: frameOn });
  if (what === 'cleared') messages.render();
  if (what !== 'time' && what !== 'visibility') {
    renderInfo($('info'), app);
    renderFilesReport($('files-report'), app);
    renderMorphs($('morphs'), app);
    inspector.refresh();
    if ($('show-bone-names').checked) viewer.setBoneNamesVisible(true);
    if ($('show-normals').checked) viewer.setNormalsVisible(true);
  }
  if (what === 'clip') { $('range-from').value = app.range?.from ?? ''; $('range-to').value = app.range?.to ?? ''; $('loop').checked = app.loop; renderNotifies(); }
  updateTimeline();
});
$('show-skeleton').addEventListener('change', (e) => viewer.setSkeletonVisible(e.target.checked));
$('show-wireframe').addEventListener('change', (e) => viewer.setWireframe(e.target.checked));
$('show-grid').addEventListener('change', (e) => { viewer.grid.visible = e.target.checked; });
$('show-ground').addEventListener('change', (e) => { viewer.ground.visible = e.target.checked; });
$('show-attachments').addEventListener('change', (e) => viewer.setAttachmentsVisible(e.target.checked));
$('show-bone-names').addEventListener('change', (e) => viewer.setBoneNamesVisible(e.target.checked));
$('show-normals').addEventListener('change', (e) => viewer.setNormalsVisible(e.target.checked));
$('bind-pose').addEventListener('change', (e) => viewer.setBindPose(e.target.checked));
// Full materials (normal, packed and emissive maps) or base colour only.
const applyBaseColourOnly = () => {
  for (const c of app.characters) for (const x of c.tree()) for (const m of x.materials) setBaseColourOnly(m, $('base-colour-only').checked);
  viewer.requestRender();
};
$('base-colour-only').addEventListener('change', applyBaseColourOnly);
app.on((what) => { if (what === 'loaded' || what === 'textures') applyBaseColourOnly(); });
$('lighting').addEventListener('change', (e) => viewer.setLighting(e.target.value));
$('background').addEventListener('input', (e) => viewer.setBackground(e.target.value));
// 0 A.D. player_trans materials: one colour for all of them, shown only when one is loaded.
const playerColors = () => app.characters.flatMap((c) => c.materials.map((m) => m.userData.playerColor).filter(Boolean));
const applyPlayerColor = () => { for (const u of playerColors()) u.value.set($('player-color').value); viewer.requestRender(); };
$('player-color').addEventListener('input', applyPlayerColor);
app.on((what) => {
  if (what !== 'loaded' && what !== 'cleared') return;
  const row = $('player-color-row');
  row.hidden = !playerColors().length;
  row.style.display = row.hidden ? 'none' : '';
  applyPlayerColor();
});
// Loop range, in the file's own frame numbers: held by the playback model.
const applyRange = () => app.setRange($('range-from').value, $('range-to').value);
for (const id of ['range-from', 'range-to']) $(id).addEventListener('input', applyRange);
$('range-clear').addEventListener('click', () => { $('range-from').value = ''; $('range-to').value = ''; applyRange(); });

// Timeline.
const scrub = $('scrub');
/** The current clip's notify markers as ticks over the scrub bar (names in tooltips). */
function renderNotifies() {
  const span = app.current ? app.current.clip.duration : 0;
  $('notify-marks').replaceChildren(...app.notifies.filter(() => span > 0).map((n) => {
    const tick = el('span', { title: `${n.name} at ${n.time.toFixed(3)} s` });
    tick.style.left = `${Math.min(100, (n.time / span) * 100)}%`;
    return tick;
  }));
}
let scrubbing = false;
function updateTimeline() {
  const cur = app.current;
  $('play').classList.toggle('playing', app.playing);
  if (!cur) { $('frame-label').textContent = 'frame –'; return; }
  scrub.max = String(cur.clip.duration || 1);
  if (!scrubbing) scrub.value = String(app.time);
  $('frame-label').textContent = `frame ${app.fileFrame} / ${cur.clip.firstFrame + cur.clip.frameCount - 1}`;
}
scrub.addEventListener('input', () => { scrubbing = true; app.current && (app.current.action.paused = true); app.setTime(Number(scrub.value)); });
scrub.addEventListener('change', () => { scrubbing = false; });
$('play').addEventListener('click', () => app.togglePlay());
$('step-back').addEventListener('click', () => app.step(-1));
$('step-forward').addEventListener('click', () => app.step(1));
$('speed').addEventListener('change', (e) => { app.speed = Number(e.target.value); });
// Go to a frame in the file's own numbering (UE1 sequences start where they start in the file).
$('goto-frame').addEventListener('change', (e) => { if (e.target.value !== '') app.goToFileFrame(Number(e.target.value)); });

// View: framing presets, orthographic camera, turning the scene about its axes.
$('view-frame').addEventListener('click', () => app.frameView());
for (const b of document.querySelectorAll('[data-view]')) b.addEventListener('click', () => app.frameView(b.dataset.view));
$('orthographic').addEventListener('change', (e) => viewer.setOrthographic(e.target.checked));
for (const b of document.querySelectorAll('[data-turn]')) {
  b.addEventListener('click', () => {
    const [axis, deg] = b.dataset.turn.split(',');
    const up = [...(viewer.up ?? [0, 0, 0])];
    up['xyz'.indexOf(axis)] = (up['xyz'.indexOf(axis)] + Number(deg) + 540) % 360 - 180;
    viewer.setUp(up);
    app.frameView();
  });
}
$('turn-reset').addEventListener('click', () => { viewer.setUp([0, 0, 0]); app.frameView(); });
for (const id of ['show-grid', 'show-ground']) $(id).addEventListener('change', () => viewer.requestRender());
$('loop').addEventListener('change', (e) => app.setLoop(e.target.checked));
let statsAge = 0;
viewer.onTick = (dt) => {
  inspector.update();
  if ((statsAge += dt) > 0.5) { statsAge = 0; inspector.renderStats(); }
  updateTimeline();
};

function selectNeighbourClip(delta) {
  const all = app.allClips;
  if (!all.length) return;
  const i = all.findIndex((c) => c.clip === app.current?.clip);
  const next = all[(i + delta + all.length) % all.length];
  app.select(next.character, next.clip);
}
const toggle = (id) => { const box = $(id); box.checked = !box.checked; box.dispatchEvent(new Event('change')); };
addEventListener('keydown', (e) => {
  const t = e.target;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement || (t instanceof HTMLInputElement && !['range', 'checkbox'].includes(t.type))) return;
  if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector('dialog[open]')) return;
  const free = t === document.body || t === viewer.renderer.domElement || t instanceof HTMLCanvasElement;
  const keys = {
    ' ': () => app.togglePlay(),
    ArrowLeft: () => app.step(-1),
    ArrowRight: () => app.step(1),
    ArrowUp: () => selectNeighbourClip(-1),
    ArrowDown: () => selectNeighbourClip(1),
    Home: () => app.current && app.setTime(0),
    End: () => app.current && app.setTime((app.current.clip.frameCount - 1) / app.current.clip.fps),
    s: () => toggle('show-skeleton'),
    w: () => toggle('show-wireframe'),
    f: () => app.frameView(),
    l: () => toggle('loop'),
    '?': () => $('help-dialog').showModal(),
  };
  const action = keys[e.key];
  // Space plays and pauses wherever the focus is (a focused button must not be pressed again);
  // arrows on a focused slider stay with the slider.
  if (!action || (!free && e.key.startsWith('Arrow') && t.type === 'range')) return;
  e.preventDefault();
  if (e.key.startsWith('Arrow') || e.key === 'Home' || e.key === 'End') app.current && (app.current.action.paused = true);
  action();
});

// A focused button is pressed by Space on key up: that press belongs to play/pause.
addEventListener('keyup', (e) => { if (e.key === ' ' && e.target instanceof HTMLButtonElement) e.preventDefault(); });

// A read-only handle for tests and host pages.
window.rigscope = Object.freeze({ snapshot: () => app.snapshot() });

// Test hook: a tiny surface for the browser tests instead of scraping the UI.
window.__rigscope = {
  app, viewer,
  ready: false,
  pixels: () => { const r = viewer.countForegroundPixels(); delete r.pixels; return r; },
  setTime: (t) => app.setTime(t),
  pause: () => app.pause(),
  clipNames: () => app.allClips.map((c) => c.clip.name),
  reportLines: () => (app.reports.at(-1)?.records ?? []).map((r) => describeRecord(r)),
  shareQuery: () => buildQuery(currentState(app, viewer, sourceUrls)),
};

async function start() {
  for (const problem of params.problems) showError(problem);
  if (params.files.length) {
    const urls = params.files.map((f) => new URL(f, location.href).href);
    sourceUrls.push(...urls);
    await load(() => entriesFromUrls(urls, fetchProgress), 'links');
  } else if (params.demo) {
    const base = new URL('./demo/', location.href);
    await load(() => entriesFromUrls([new URL('rigscope-demo.psk', base).href, new URL('rigscope-demo.psa', base).href]), 'demo', { demo: true });
  }
  applyState(app, viewer, params);
  if (params.skeleton) $('show-skeleton').checked = true;
  window.__rigscope.ready = true;
}
start();
