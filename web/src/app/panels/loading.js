// Opening files: drops anywhere on the page, the file and folder inputs, Open URL, Clear and
// Cancel, with the status line and progress bar. Zips and .rigscope bundles among them are opened
// by core/input.js; a bundle's view is applied here. Returns `load`, which the page's start uses too.
import { entriesFromUrls, formatBytes } from '../../core/input.js';
import { describeRateLimit, entriesFromRepo, isRepoUrl } from '../../core/repo.js';
import { readsName, repoCompanions } from '../../families/index.js';
import { displayName } from '../../core/files.js';
import { isProblem } from '../../core/report.js';
import { nextTask } from '../../core/tasks.js';
import { entriesFromDataTransfer, entriesFromFileList } from '../input.js';
import { bundleView } from '../packed-link.js';
import { applyState } from '../params.js';

export function loadingPanel({ app, viewer, $, messages }) {
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

  // Cancel stops the whole batch: the file in flight (its worker is replaced) and every file after it.
  let cancelled = false;
  // `replace` overrides the drop-mode choice (a packed link's drops add to each other).
  async function load(getEntries, label, { demo = false, replace } = {}) {
    cancelled = false;
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
        isCancelled: () => cancelled,
        onProgress: ({ done, total, name }) => {
          status(`Decoding ${done}/${total}: ${name}`);
          progress(done, total);
        },
      });
      const problems = report.records.filter(isProblem).length;
      status(
        `${entries.length} file${entries.length === 1 ? '' : 's'} read${problems ? `; ${problems} problem${problems === 1 ? '' : 's'} (see Files)` : ''}`,
      );
      if (view) {
        for (const problem of view.problems) messages.add(problem);
        await applyState(app, viewer, view);
        if (view.skeleton) $('show-skeleton').checked = true;
      }
      messages.render();
    } catch (err) {
      messages.add(err.message);
      status('');
    } finally {
      $('cancel-button').hidden = true;
      progress(0, 0);
    }
  }
  const loadUrls = (urls, label = 'links') =>
    load(() => entriesFromUrls(urls, fetchProgress, { onUnpack, isCancelled: () => cancelled }), label);

  /**
   * A repository folder (core/repo.js): listed at one commit through the host's API, then the files
   * some family reads fetched as links are, with what they need from elsewhere in the repository
   * (a UE1 mesh's script). The API calls left (GitHub allows 60 an hour without a key) are said in
   * the status line; notes (a cut listing, files past the cap, companions) become messages.
   */
  async function loadRepo(url) {
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
          limits: { onUnpack, isCancelled: () => cancelled },
        }),
      'the repository folder',
    );
    if (rate && $('status').textContent) status(`${$('status').textContent}; ${rate}`);
  }

  // Drop anywhere on the page.
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
  $('clear-button').addEventListener('click', () => {
    app.clear();
    messages.clear();
    status('');
  });
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
  $('cancel-button').addEventListener('click', () => {
    cancelled = true;
    app.decoder.cancel('Decoding was cancelled; files already loaded stay');
  });
  return { load, loadUrls, loadRepo, status, progress };
}
