// Copy link and Embed code: the current view (clip, frame, camera, …) as the page's parameters,
// with the files opened from this computer packed into the link's fragment (app/packed-link.js).
// Opening a packed link (at start, or when only the fragment changes) unpacks it here.
import { formatBytes } from '../../core/input.js';
import { nextTask } from '../../core/tasks.js';
import { el } from '../dom.js';
import { currentState, queryWithPackedState, readPackedHash, readParams, applyState } from '../params.js';
import { describeShare, makeShare, openPacked } from '../packed-link.js';

/**
 * URLs the loaded files came from (a zip's members share the zip's), how many came from this
 * computer, and `repo`: the folder's address at its commit when every file came from one
 * repository folder (core/repo.js), which a link names in place of every file.
 */
export function fileSources(app) {
  // The demo is what a link without files shows anyway.
  if (app.demo) return { urls: [], local: 0 };
  const urls = new Set();
  const repos = new Set();
  let local = 0;
  for (const entry of app.files.values()) {
    if (entry.url) urls.add(entry.url);
    else local++;
    repos.add(entry.repo);
  }
  const [only] = repos;
  return { urls: [...urls], local, repo: repos.size === 1 && only ? only : undefined };
}

/** Files opened from this computer, each with the drop it came in (packed links keep drops apart). */
export function localFiles(app) {
  if (app.demo) return [];
  const dropOf = new Map();
  app.reports.forEach((r, i) => {
    for (const f of r.files) dropOf.set(f, i);
  });
  return [...app.files.values()]
    .filter((e) => !e.url)
    .map((entry) => ({ path: entry.path, entry, drop: dropOf.get(entry.path) ?? 0 }))
    .sort((a, b) => a.drop - b.drop);
}

/**
 * Opens a packed fragment: unpacks it (in slices, with progress), then loads its drops in order.
 * Returns the view parameters with the pack's state, or null when the pack was refused (the
 * message is shown and what is loaded stays).
 */
export async function openPackedLink({ app, $, messages, loader }, text) {
  loader.status('Unpacking the link…');
  let pack;
  try {
    pack = await openPacked(text, {
      onProgress: ({ done, total }) => {
        loader.status(`Unpacking the link: ${formatBytes(done)} of ${formatBytes(total)}`);
        loader.progress(done, total);
      },
    });
  } catch (err) {
    await nextTask(); // the message renders in a task of its own
    messages.add(`${err.message}. Nothing was opened from this link${app.characters.length ? '; what was loaded stays' : ''}.`);
    loader.status('');
    return null;
  } finally {
    loader.progress(0, 0);
  }
  const view = readParams(queryWithPackedState(location.search, pack.state));
  for (const problem of view.problems) messages.add(problem);
  // The pack's level of detail is shown from the first drawing of its files on (applyState shows
  // it again when a drop that replaced the scene reset it).
  if (view.lod !== undefined) app.lod = view.lod;
  // The pack's mesh (of a UE1 package; `rigscope page --mesh`) is the only one decoded.
  if (view.mesh) app.objects = [view.mesh];
  // Like a drop: the first adds to the scene or replaces it as the drop mode says; the rest add.
  for (const [i, drop] of pack.drops.entries()) await loader.load(async () => drop, 'packed link', i ? { replace: false } : {});
  if (view.skeleton) $('show-skeleton').checked = true;
  return view;
}

/** The share dialog opened for a link or embed code (`kind`), empty, saying it is packing. */
function openShareDialog($, kind) {
  $('share-title').textContent = kind === 'embed' ? 'Embed code' : 'Link to this view';
  $('share-text').value = '';
  $('share-files').replaceChildren();
  $('share-too-long').hidden = true;
  $('share-copy').disabled = true;
  $('share-text').hidden = false;
  $('share-copy').hidden = false;
  $('share-note').textContent = 'Packing…';
  $('share-dialog').showModal();
}

/** What makeShare gave, in the dialog: the text to copy, what it carries, or the offer of the standalone page. */
function showShare($, result) {
  $('share-text').value = result.text;
  $('share-note').textContent = describeShare(result);
  $('share-files').replaceChildren(
    ...result.files.map((f) => el('li', {}, `${f.name} — ${formatBytes(f.size)}`)),
    ...result.left.map((p) => el('li', { class: 'muted' }, `${p} — left out (the scene does not use it)`)),
  );
  $('share-too-long').hidden = !result.tooLong;
  // Nothing to copy when it does not fit: the offer of the standalone page stands alone.
  $('share-copy').disabled = result.tooLong;
  $('share-copy').hidden = result.tooLong;
  $('share-text').hidden = result.tooLong;
  // The standalone page (Save page) carries files of any size; point at it where it exists.
  const save = document.getElementById('save-page-button');
  $('share-save-page').hidden = !save;
  $('share-save-readme').hidden = !!save;
  if (!result.tooLong) $('share-text').select();
}

export function sharePanel(page) {
  const { app, viewer, $ } = page;
  let busy = false;
  let resume = false; // a clip held on its frame while the dialog is open plays on when it closes
  async function share(kind) {
    if (busy) return;
    busy = true;
    const { urls: all, repo } = fileSources(app);
    // A folder from one repository: the link names the folder at its commit, not every file.
    const urls = repo ? [] : all;
    // The link names the frame on screen: a playing clip holds on that frame while the dialog is
    // open (packing takes a while, and the clip went on playing behind it: frame=26 was named
    // while 31 showed), and plays on from it when the dialog closes.
    const state = { ...currentState(app, viewer, urls), repo };
    if (state.autoplay && app.current) {
      app.goToFileFrame(state.frame);
      resume = true;
    }
    openShareDialog($, kind);
    try {
      const result = await makeShare({
        kind,
        base: location.href,
        hosted: urls,
        state,
        local: localFiles(app),
        scene: app.scene,
        onProgress: ({ done, total }) => {
          $('share-note').textContent = `Packing: ${formatBytes(done)} of ${formatBytes(total)}`;
        },
      });
      page.lastShare = result;
      showShare($, result);
    } catch (err) {
      $('share-note').textContent = err.message;
    } finally {
      busy = false;
    }
  }
  $('share-dialog').addEventListener('close', () => {
    if (resume) app.play();
    resume = false;
  });
  $('link-button').addEventListener('click', () => share('link'));
  $('embed-button').addEventListener('click', () => share('embed'));
  $('share-copy').addEventListener('click', () => navigator.clipboard?.writeText($('share-text').value).catch(() => {}));
  $('share-save-page').addEventListener('click', () => {
    $('share-dialog').close();
    document.getElementById('save-page-button')?.click();
  });
  // A packed link pasted into this tab changes only the fragment: open it as a drop.
  addEventListener('hashchange', async () => {
    const text = readPackedHash(location.hash);
    if (text === undefined) return;
    const view = await openPackedLink(page, text);
    if (view) await applyState(app, viewer, view);
  });
}
