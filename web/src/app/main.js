// Viewer page: wires the DOM to the App and the Viewer, loads the demo, exposes a test hook.
import { sharedDecoder } from '../decoder/client.js';
import { App } from './app.js';
import { entriesFromDataTransfer, entriesFromFileList, entriesFromUrls } from './input.js';
import { el, renderClipList, renderFilesReport, renderInfo, renderMorphs } from './panels.js';
import { Viewer } from './viewer.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const viewer = new Viewer($('stage'));
const app = new App(viewer, sharedDecoder());

function showError(message) {
  const p = el('p', {}, message, el('button', { type: 'button', 'aria-label': 'Dismiss', onclick: () => p.remove() }, '×'));
  $('errors').append(p);
}

function status(text) { $('status').textContent = text; }

async function load(getEntries, label) {
  $('cancel-button').hidden = false;
  status(`Reading ${label}…`);
  try {
    const entries = await getEntries();
    const report = await app.loadFiles(entries, {
      onProgress: ({ done, total, name }) => status(`Decoding ${done}/${total}: ${name}`),
    });
    for (const r of report.refused) showError(`${r.file}: ${r.reason}`);
    status(`${entries.length} file${entries.length === 1 ? '' : 's'} read`);
  } catch (err) {
    showError(err.message);
    status('');
  } finally {
    $('cancel-button').hidden = true;
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
  load(() => pending, 'dropped files');
});
$('file-input').addEventListener('change', (e) => {
  const files = [...e.target.files];
  e.target.value = '';
  load(() => entriesFromFileList(files), 'files');
});
$('open-button').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('file-input').click(); } });
$('clear-button').addEventListener('click', () => { app.clear(); $('errors').replaceChildren(); status(''); });
$('cancel-button').addEventListener('click', () => sharedDecoder().cancel('Decoding was cancelled; files already loaded stay'));

// Panels.
const refreshClips = () => renderClipList($('clip-list'), app, $('clip-search').value);
$('clip-search').addEventListener('input', refreshClips);
app.on((what) => {
  refreshClips();
  if (what !== 'time') {
    renderInfo($('info'), app);
    renderFilesReport($('files-report'), app);
    renderMorphs($('morphs'), app);
  }
  updateTimeline();
});
$('show-skeleton').addEventListener('change', (e) => viewer.setSkeletonVisible(e.target.checked));
$('show-wireframe').addEventListener('change', (e) => viewer.setWireframe(e.target.checked));
$('show-grid').addEventListener('change', (e) => { viewer.grid.visible = e.target.checked; });
$('show-attachments').addEventListener('change', (e) => viewer.setAttachmentsVisible(e.target.checked));

// Timeline.
const scrub = $('scrub');
let scrubbing = false;
function updateTimeline() {
  const cur = app.current;
  $('play').classList.toggle('playing', app.playing);
  if (!cur) { $('frame-label').textContent = 'frame –'; return; }
  scrub.max = String(cur.clip.duration || 1);
  if (!scrubbing) scrub.value = String(app.time);
  $('frame-label').textContent = `frame ${cur.clip.firstFrame + app.frame} / ${cur.clip.firstFrame + cur.clip.frameCount - 1}`;
}
scrub.addEventListener('input', () => { scrubbing = true; app.current && (app.current.action.paused = true); app.setTime(Number(scrub.value)); });
scrub.addEventListener('change', () => { scrubbing = false; });
$('play').addEventListener('click', () => app.togglePlay());
$('step-back').addEventListener('click', () => app.step(-1));
$('step-forward').addEventListener('click', () => app.step(1));
$('speed').addEventListener('change', (e) => { viewer.timeScale = Number(e.target.value); });
$('loop').addEventListener('change', (e) => app.setLoop(e.target.checked));
viewer.onTick = () => {
  const cur = app.current;
  // Play once holds the last file frame (the clip's extra wrap key is for looping only).
  if (cur && !app.loop && cur.clip.frameCount > 1) {
    const last = (cur.clip.frameCount - 1) / cur.clip.fps;
    if (cur.action.time >= last && !cur.action.paused) { cur.action.paused = true; app.setTime(last); }
  }
  updateTimeline();
};

addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== 'range' && e.target.type !== 'checkbox') return;
  if (e.key === ' ' && !(e.target instanceof HTMLButtonElement)) { e.preventDefault(); app.togglePlay(); }
  else if (e.key === 'ArrowLeft' && e.target === document.body) app.step(-1);
  else if (e.key === 'ArrowRight' && e.target === document.body) app.step(1);
});

// Test hook: a tiny surface for the browser tests instead of scraping the UI.
window.__rigscope = {
  app, viewer,
  ready: false,
  pixels: () => { const r = viewer.countForegroundPixels(); delete r.pixels; return r; },
  setTime: (t) => app.setTime(t),
  pause: () => { if (app.current) app.current.action.paused = true; },
  clipNames: () => app.allClips.map((c) => c.clip.name),
};

async function start() {
  const files = params.getAll('file');
  if (files.length) {
    await load(() => entriesFromUrls(files), 'links');
  } else if (params.get('demo') !== '0') {
    const base = new URL('./demo/', location.href);
    await load(() => entriesFromUrls([new URL('rigscope-demo.psk', base).href, new URL('rigscope-demo.psa', base).href]), 'demo');
  }
  window.__rigscope.ready = true;
}
start();
