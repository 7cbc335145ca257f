// Copy link and Embed code: the current view (clip, frame, camera, …) as the page's parameters.
import { buildQuery, currentState } from '../params.js';

/** URLs the loaded files came from (a zip's members share the zip's), and how many came from this computer. */
export function fileSources(app) {
  // The demo is what a link without files shows anyway.
  if (app.demo) return { urls: [], local: 0 };
  const urls = new Set();
  let local = 0;
  for (const entry of app.files.values()) {
    if (entry.url) urls.add(entry.url);
    else local++;
  }
  return { urls: [...urls], local };
}

export function sharePanel({ app, viewer, $ }) {
  function share(kind) {
    const { urls, local } = fileSources(app);
    const query = buildQuery(currentState(app, viewer, urls));
    const page = kind === 'embed' ? 'embed.html' : 'index.html';
    const url = new URL(`${page}${query ? `?${query}` : ''}`, location.href).href;
    $('share-text').value = kind === 'embed'
      ? `<iframe src="${url}" width="640" height="480" style="border:0" allow="fullscreen" title="Rigscope player"></iframe>`
      : url;
    $('share-note').textContent = local > 0
      ? `${local} file(s) were opened from this computer: a link can only carry files that are hosted on the web (a wiki's file server, GitHub…). Host them, then open them with ?file=URL.`
      : 'The link reopens the same files, clip, frame and camera.';
    $('share-title').textContent = kind === 'embed' ? 'Embed code' : 'Link to this view';
    $('share-dialog').showModal();
    $('share-text').select();
  }
  $('link-button').addEventListener('click', () => share('link'));
  $('embed-button').addEventListener('click', () => share('embed'));
  $('share-copy').addEventListener('click', () => navigator.clipboard?.writeText($('share-text').value).catch(() => {}));
}
