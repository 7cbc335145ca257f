// Opening files: drops anywhere on the page, the file and folder inputs, Open URL, Clear and
// Cancel, with the status line and progress bar. Zips and .rigscope bundles among them are opened
// by core/input.js; a bundle's view is applied here. Returns `load`, which the page's start uses too.
import { entriesFromUrls, formatBytes } from '../../core/input.js';
import { describeRateLimit, entriesFromRepo, isRepoUrl } from '../../core/repo.js';
import { readsInParts, readsName, repoCompanions } from '../../families/index.js';
import { displayName } from '../../core/files.js';
import { isProblem } from '../../core/report.js';
import { nextTask } from '../../core/tasks.js';
import { entriesFromDataTransfer, entriesFromFileList } from '../input.js';
import { bundleView } from '../packed-link.js';
import { applyState } from '../params.js';

/** The status line and progress bar, and the progress callbacks of fetching and unpacking. */
function statusLine($) {
  const status = (text) => {
    $('status').textContent = displayName(text);
  };
  function progress(done, total) {
    const bar = $('progress');
    bar.hidden = !(total > 0) || done >= total;
    bar.max = total || 1;
    bar.value = done;
  }
  function fetchProgress({ url, got, total, done, count }) {
    // One file: its bytes; several (fetched a few at once): how many are in.
    if (count > 1) {
      status(`Fetching ${count} files: ${done} in`);
      progress(done, count);
      return;
    }
    status(`Fetching ${url.split('/').pop()}: ${total ? `${Math.round((got / total) * 100)}%` : `${(got / 1e6).toFixed(1)} MB`}`);
    progress(got, total);
  }
  // A .rigscope bundle unpacks in slices, as a packed link does, with the same progress.
  function onUnpack({ name, done, total }) {
    status(`Unpacking ${name}: ${formatBytes(done)} of ${formatBytes(total)}`);
    progress(done, total);
  }
  return { status, progress, fetchProgress, onUnpack };
}

/**
 * `load(getEntries, label, options)`: one batch of files read and decoded, with the status line
 * saying how far it is, a .rigscope bundle's view applied once its files are in. `batch.cancelled`
 * is what Cancel sets.
 */
function batchLoader({ app, viewer, $, messages, line, batch }) {
  const { status, progress } = line;
  // `replace` overrides the drop-mode choice (a packed link's drops add to each other).
  return async function load(getEntries, label, { demo = false, replace } = {}) {
    batch.cancelled = false;
    $('cancel-button').hidden = false;
    status(`Reading ${label}…`);
    try {
      // The reading starts in a task of its own: the browser's own work of handing over the files
      // (a File per file: 35-45 ms for a folder of 94 under software GL's busy cores) and ours
      // together went past 50 ms.
      await nextTask();
      const entries = await getEntries();
      // A .rigscope bundle opens as its packed link would: its level of detail is shown from the
      // first drawing of its files on, and the rest of its view applies once they are in.
      const view = bundleView(entries);
      if (view?.lod !== undefined) app.lod = view.lod;
      const report = await app.loadFiles(entries, {
        demo,
        replace: replace ?? (!demo && $('drop-mode').value === 'replace'),
        isCancelled: () => batch.cancelled,
        onProgress: ({ done, total, name }) => {
          status(`Decoding ${done}/${total}: ${name}`);
          progress(done, total);
        },
      });
      status(readSummary(entries.length, report.records.filter(isProblem).length));
      if (view) await applyBundleView({ app, viewer, $, messages, view });
      messages.render();
    } catch (err) {
      messages.add(err.message);
      status('');
    } finally {
      $('cancel-button').hidden = true;
      progress(0, 0);
    }
  };
}

/** The status line once a batch is in: "3 files read; 1 problem (see Files)". */
function readSummary(files, problems) {
  const problemText = problems ? `; ${problems} problem${problems === 1 ? '' : 's'} (see Files)` : '';
  return `${files} file${files === 1 ? '' : 's'} read${problemText}`;
}

/** A .rigscope bundle's view (camera, selection, toggles), with what of it could not apply. */
async function applyBundleView({ app, viewer, $, messages, view }) {
  for (const problem of view.problems) messages.add(problem);
  await applyState(app, viewer, view);
  if (view.skeleton) $('show-skeleton').checked = true;
}

/**
 * A repository folder (core/repo.js): listed at one commit through the host's API, then the files
 * some family reads fetched as links are, with what they need from elsewhere in the repository
 * (a UE1 mesh's script). The API calls left (GitHub allows 60 an hour without a key) are said in
 * the status line; notes (a cut listing, files past the cap, companions) become messages.
 */
function repoLoader({ $, messages, line, batch, load }) {
  const { status, fetchProgress, onUnpack } = line;
  return async function loadRepo(url) {
    let rate = '';
    const onListed = (listing) => {
      rate = describeRateLimit(listing.host, listing.rate);
      status(`${listing.files.length} files to fetch from ${listing.project} at ${listing.sha.slice(0, 12)}${rate ? ` (${rate})` : ''}`);
    };
    await load(
      () =>
        entriesFromRepo(url, {
          wanted: readsName,
          companions: repoCompanions,
          onListed,
          onNote: (note) => messages.add(note),
          onProgress: fetchProgress,
          limits: { onUnpack, isCancelled: () => batch.cancelled },
        }),
      'the repository folder',
    );
    if (rate && $('status').textContent) status(`${$('status').textContent}; ${rate}`);
  };
}

/** Drops anywhere on the page, and the file and folder inputs. */
function wireFileInputs({ $, load, onUnpack }) {
  const stage = $('stage');
  addEventListener('dragover', (e) => {
    e.preventDefault();
    stage.classList.add('dragging');
  });
  addEventListener('dragleave', (e) => {
    if (e.target === document.documentElement || !e.relatedTarget) stage.classList.remove('dragging');
  });
  addEventListener('drop', (e) => {
    e.preventDefault();
    stage.classList.remove('dragging');
    // The items list is only readable during the event: collect before awaiting.
    const pending = entriesFromDataTransfer(e.dataTransfer, onUnpack);
    load(() => pending, 'dropped files');
  });
  for (const [input, label] of [
    ['file-input', 'files'],
    ['folder-input', 'folder'],
  ]) {
    $(input).addEventListener('change', (e) => {
      const files = [...e.target.files];
      e.target.value = '';
      load(() => entriesFromFileList(files, onUnpack), label);
    });
  }
}

/** Open URL: links are fetched together, repository folders one by one before them. */
function wireUrlDialog({ $, messages, loadUrls, loadRepo }) {
  $('url-button').addEventListener('click', () => $('url-dialog').showModal());
  $('url-dialog').addEventListener('close', () => {
    if ($('url-dialog').returnValue !== 'open') return;
    const urls = [];
    const folders = [];
    for (const u of $('url-text').value.split(/\s+/).filter(Boolean)) {
      try {
        // A GitHub or GitLab folder as the browser shows it opens as a folder drop would.
        (isRepoUrl(u) ? folders : urls).push(new URL(u, location.href).href);
      } catch {
        messages.add(`${u} is not a web address`);
      }
    }
    (async () => {
      for (const folder of folders) await loadRepo(folder);
      if (urls.length) await loadUrls(urls);
    })();
  });
}

export function loadingPanel({ app, viewer, $, messages }) {
  const line = statusLine($);
  const { status, progress, fetchProgress, onUnpack } = line;
  // Cancel stops the whole batch: the file in flight (its worker is replaced) and every file after it.
  const batch = { cancelled: false };
  const load = batchLoader({ app, viewer, $, messages, line, batch });
  const loadUrls = (urls, label = 'links') =>
    load(() => entriesFromUrls(urls, fetchProgress, { onUnpack, readsInParts, isCancelled: () => batch.cancelled }), label);
  const loadRepo = repoLoader({ $, messages, line, batch, load });

  wireFileInputs({ $, load, onUnpack });
  wireUrlDialog({ $, messages, loadUrls, loadRepo });
  $('clear-button').addEventListener('click', () => {
    app.clear();
    messages.clear();
    status('');
  });
  $('cancel-button').addEventListener('click', () => {
    batch.cancelled = true;
    app.decoder.cancel('Decoding was cancelled; files already loaded stay');
  });
  return { load, loadUrls, loadRepo, status, progress };
}
