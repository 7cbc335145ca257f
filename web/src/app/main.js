// Viewer page. The state is the App (everything decoded, the scene, its characters and the
// playback model) and the Viewer (camera and what is drawn); each panel is one module that
// listens to the App's named signals and changes state only through App and Viewer methods.
import { sharedPool } from '../decoder/pool.js';
import { App } from './app.js';
import { Viewer } from './viewer.js';
import { Messages } from './messages.js';
import { entriesFromUrls } from '../core/input.js';
import { applyState, readParams } from './params.js';
import { loadingPanel } from './panels/loading.js';
import { openPackedLink, sharePanel } from './panels/share.js';
import { exportPanel } from './panels/export.js';
import { recordPanel } from './panels/record.js';
import { pagePanel } from './panels/page.js';
import { timelinePanel } from './panels/timeline.js';
import { viewPanel } from './panels/view.js';
import { displayPanel } from './panels/display.js';
import { sidePanels } from './panels/side.js';
import { lodPanel } from './panels/lod.js';
import { keyboard } from './panels/keyboard.js';
import { hooks } from './panels/hooks.js';
import { toolbar } from './panels/toolbar.js';

const $ = (id) => document.getElementById(id);
const params = readParams();
const viewer = new Viewer($('stage'));
// Decodes on a pool of workers, one per core (decoder/pool.js), shared with any <rigscope-viewer>.
const app = new App(viewer, sharedPool());
viewer.onTick = (dt) => app.emit('tick', dt);
const messages = new Messages($('messages'), () => app.messages());
const page = { app, viewer, $, messages };
page.loader = loadingPanel(page);

for (const panel of [
  toolbar,
  sharePanel,
  exportPanel,
  recordPanel,
  pagePanel,
  timelinePanel,
  viewPanel,
  displayPanel,
  sidePanels,
  keyboard,
  hooks,
])
  panel(page);
lodPanel(page);

async function start() {
  for (const problem of params.problems) messages.add(problem);
  let view = params;
  // A link's level of detail (lod=) is shown from the first drawing of its files on.
  if (params.lod !== undefined) app.lod = params.lod;
  // A link's mesh= (of a UE1 package): only that mesh of its packages is decoded and shown.
  if (params.mesh) app.objects = [params.mesh];
  // A repository folder (repo=): listed at its commit and fetched as a folder drop reads.
  if (params.repo) await page.loader.loadRepo(params.repo);
  if (params.files.length) {
    await page.loader.loadUrls(params.files.map((f) => new URL(f, location.href).href));
  }
  // A packed link (#pack=…): the files and the view state travel in the fragment.
  if (params.packed !== undefined) {
    view = (await openPackedLink(page, params.packed)) ?? params;
  } else if (params.demo) {
    const base = new URL('./demo/', location.href);
    const demo = ['rigscope-demo.psk', 'rigscope-demo.psa'].map((n) => new URL(n, base).href);
    await page.loader.load(() => entriesFromUrls(demo), 'demo', { demo: true });
  }
  await applyState(app, viewer, view);
  if (view.skeleton) $('show-skeleton').checked = true;
  window.__rigscope.ready = true;
}

start();
