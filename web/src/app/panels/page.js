// Save page: the current view as one standalone .html file (the player, the decoder and the files
// the scene uses, core/page.js). It opens by double click from disk with no network, or from any
// static host. The player's template comes from the site (rigscope-page.html, built by
// scripts/build-standalone.mjs); the files and view are packed as a packed link packs them.
import { packSceneAsync, usedFiles } from '../../core/pack.js';
import { formatBytes } from '../../core/input.js';
import { pageFileName, standalonePage } from '../../core/page.js';
import { currentState, packedState } from '../params.js';
import { download } from './export.js';
import { readForPacking } from '../packed-link.js';

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

export function pagePanel({ app, viewer, $, messages, loader }) {
  const button = $('save-page-button');
  let busy = false;
  async function save() {
    if (busy) return;
    if (!app.characters.length) return messages.add('Nothing to save: open a model first');
    busy = true;
    button.disabled = true;
    loader.status('Saving the page…');
    try {
      const used = usedFiles(app.scene, loadedFiles(app));
      const { files, drops } = await readForPacking(used, 'the page');
      const state = { ...packedState(currentState(app, viewer, [])), drops };
      const [template, packed] = await Promise.all([
        fetchTemplate(),
        packSceneAsync(
          { files, state },
          { onProgress: ({ done, total }) => loader.status(`Saving the page: packing ${formatBytes(done)} of ${formatBytes(total)}`) },
        ),
      ]);
      const html = standalonePage(template, packed.payload);
      const name = pageFileName(app.characters[0].name);
      download(new Blob([html], { type: 'text/html' }), name);
      loader.status(
        `Saved ${name}: ${formatBytes(html.length)}, ${files.length} file${files.length === 1 ? '' : 's'} (${formatBytes(files.reduce((n, f) => n + f.bytes.length, 0))})`,
      );
    } catch (err) {
      loader.status('');
      messages.add(`Save page failed: ${err.message}`);
    } finally {
      busy = false;
      button.disabled = false;
    }
  }
  button.addEventListener('click', save);
}
