// Save page and Save bundle: the files the scene uses and the view, packed as a packed link packs
// them, written as one file. *Save page* puts the pack into the standalone .html (the player, the
// decoder and the files, core/page.js): it opens by double click from disk with no network, or from
// any static host; the player's template comes from the site (rigscope-page.html, built by
// scripts/build-standalone.mjs). *Save bundle* writes the pack behind the bundle signature
// (core/bundle.js): a .rigscope file that any Rigscope opens as the files it holds.
import { packSceneAsync, usedFiles } from '../../core/pack.js';
import { formatBytes } from '../../core/input.js';
import { pageFileName, standalonePage, titleCharacter } from '../../core/page.js';
import { bundleBytes, bundleFileName } from '../../core/bundle.js';
import { currentState, packedState } from '../params.js';
import { download } from './export.js';
import { readForPacking } from '../packed-link.js';
import { setBusy } from './toolbar.js';

/** Every file loaded (from this computer or the web: the page can fetch nothing), with its drop. */
function loadedFiles(app) {
  const dropOf = new Map();
  app.reports.forEach((r, i) => {
    for (const f of r.files) dropOf.set(f, i);
  });
  return [...app.files.values()]
    .map((entry) => ({ path: entry.path, entry, drop: dropOf.get(entry.path) ?? 0 }))
    .sort((a, b) => a.drop - b.drop);
}

async function fetchTemplate() {
  const url = new URL('rigscope-page.html', location.href);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`the page template (${url.pathname}) could not be fetched: ${err.message}`, { cause: err });
  }
  if (!response.ok) throw new Error(`the page template (${url.pathname}) is missing on this site (HTTP ${response.status})`);
  return response.text();
}

/**
 * The files the scene uses (usedFiles) and the current view, packed (packSceneAsync) with the
 * drops they came in, as a packed link packs them. `what` names the file in messages ("the page").
 * @returns {Promise<{ files: { name: string, bytes: Uint8Array }[], payload: Uint8Array }>}
 */
async function packView({ app, viewer, loader }, what) {
  const used = usedFiles(app.scene, loadedFiles(app));
  const { files, drops } = await readForPacking(used, what);
  const state = { ...packedState(currentState(app, viewer, [])), drops };
  const { payload } = await packSceneAsync(
    { files, state },
    { onProgress: ({ done, total }) => loader.status(`Saving ${what}: packing ${formatBytes(done)} of ${formatBytes(total)}`) },
  );
  return { files, payload };
}

/** The standalone page of the current view. */
async function savePage(page) {
  const [template, { files, payload }] = await Promise.all([fetchTemplate(), packView(page, 'the page')]);
  const { name } = titleCharacter(page.app.characters);
  const html = standalonePage(template, payload, { title: name });
  return { files, blob: new Blob([html], { type: 'text/html' }), name: pageFileName(name), size: html.length };
}

/** The .rigscope bundle of the current view. */
async function saveBundle(page) {
  const { files, payload } = await packView(page, 'the bundle');
  const bytes = bundleBytes(payload);
  return {
    files,
    blob: new Blob([bytes], { type: 'application/octet-stream' }),
    name: bundleFileName(titleCharacter(page.app.characters).name),
    size: bytes.length,
  };
}

/** Wires a Save button (`what` names its file in the status line): one save at a time, its progress in the status line, failures as messages. */
function saveButton(page, id, label, what, save) {
  const { app, $, messages, loader } = page;
  const button = $(id);
  let busy = false;
  button.addEventListener('click', async () => {
    if (busy) return;
    if (!app.characters.length) return messages.add('Nothing to save: open a model first');
    busy = true;
    setBusy(button, true);
    loader.status(`Saving ${what}…`);
    try {
      const { files, blob, name, size } = await save(page);
      download(blob, name);
      const raw = files.reduce((n, f) => n + f.bytes.length, 0);
      loader.status(`Saved ${name}: ${formatBytes(size)}, ${files.length} file${files.length === 1 ? '' : 's'} (${formatBytes(raw)})`);
    } catch (err) {
      loader.status('');
      messages.add(`${label} failed: ${err.message}`);
    } finally {
      busy = false;
      setBusy(button, false);
    }
  });
}

export function pagePanel(page) {
  saveButton(page, 'save-page-button', 'Save page', 'the page', savePage);
  if (page.$('save-bundle-button')) saveButton(page, 'save-bundle-button', 'Save bundle', 'the bundle', saveBundle);
}
