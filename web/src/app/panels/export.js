// Export GLB, Export all and Screenshot: all work on copies and never touch playback.
import { el } from '../dom.js';
import { folderOf, glbNames } from '../../three/glb-names.js';
import { setBusy } from './toolbar.js';

/** Saves a blob under a file name (the browser's download). */
export function download(blob, name) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** Said after a compressed export: the page writes WebP textures, KTX2 is the command line's (the
 * Basis Universal encoder compiles code with `new Function`, which the page's CSP refuses). */
export const COMPRESSED_NOTE =
  ', compressed with WebP textures (KTX2 textures: command line only, rigscope convert --compress --textures ktx2)';

/**
 * The GLB as *Compressed* asks: raw, or quantized and meshopt-compressed with WebP textures
 * (three/compress.js, glTF-Transform and meshopt's encoder, loaded only when it is ticked).
 */
async function finished({ glb, problems }, $) {
  if (!$('export-compressed').checked) return { glb, problems };
  const { compressGLB } = await import('../../three/compress.js');
  const done = await compressGLB(glb, { textures: 'webp' });
  return { glb: done.glb, problems: [...problems, ...done.problems] };
}

export function exportPanel({ app, viewer, $, messages, loader }) {
  $('export-button').addEventListener('click', async () => {
    if (!app.characters.length) return messages.add('Nothing to export: load a model first');
    loader.status('Exporting GLB…');
    try {
      const { exportGLB } = await import('../../three/export.js');
      const { glb, problems } = await finished(await exportGLB(app.characters, { decoder: app.decoder }), $);
      download(new Blob([glb], { type: 'model/gltf-binary' }), `${app.characters[0].name.replace(/\.[^.]*$/, '')}.glb`);
      loader.status(`Exported ${(glb.byteLength / 1024).toFixed(0)} KB${$('export-compressed').checked ? COMPRESSED_NOTE : ''}`);
      for (const p of problems) messages.add(`Export: ${p}`);
    } catch (err) {
      messages.add(`Export failed: ${err.message}`);
    }
  });
  exportAll({ app, $, messages, loader });
  $('screenshot-button').addEventListener('click', () => {
    viewer.render();
    viewer.renderer.domElement.toBlob((blob) => download(blob, 'rigscope.png'), 'image/png');
  });
}

/**
 * The zip's entries: one GLB per character, beside its model's file as `rigscope export` writes it
 * for that folder (a clash in a folder gets " (2)").
 */
export function zipPlan(characters) {
  const byFolder = new Map();
  for (const c of characters) {
    const folder = folderOf(c.models[0]?.file ?? '');
    if (!byFolder.has(folder)) byFolder.set(folder, []);
    byFolder.get(folder).push(c);
  }
  return [...byFolder].flatMap(([folder, list]) =>
    glbNames(list.map((c) => c.name)).map((name, i) => ({ character: list[i], path: `${folder}${name}` })),
  );
}

/** *Export all*: every character's GLB in one zip (fflate, streamed into the Blob's parts), with progress and Cancel. */
function exportAll({ app, $, messages, loader }) {
  let cancelled = false;
  $('export-all-cancel').addEventListener('click', () => {
    cancelled = true;
  });
  $('export-all-button').addEventListener('click', async () => {
    if ($('export-all-button').hasAttribute('data-busy')) return;
    const plan = zipPlan(app.characters.filter((c) => !c.textureBoard));
    if (!plan.length) return messages.add('Nothing to export: load a model first');
    cancelled = false;
    setBusy($('export-all-button'), true);
    $('export-all-cancel').hidden = false;
    try {
      const [{ exportGLB }, { Zip, ZipPassThrough }] = await Promise.all([import('../../three/export.js'), import('fflate')]);
      const parts = [];
      let failed = null;
      const zip = new Zip((err, chunk) => {
        if (err) failed = err;
        else parts.push(chunk);
      });
      for (const [i, { character, path }] of plan.entries()) {
        if (cancelled) break;
        loader.status(`Exporting ${i + 1}/${plan.length}: ${path}`);
        loader.progress(i, plan.length);
        // The count also on the button beside Export all: on a phone the status line is off-screen.
        $('export-all-cancel').textContent = `Cancel export (${i + 1}/${plan.length})`;
        const { glb, problems } = await finished(await exportGLB([character], { decoder: app.decoder, origin: true }), $);
        for (const p of problems) messages.add(`Export: ${path}: ${p}`);
        const entry = new ZipPassThrough(path); // GLBs hold compressed pictures: storing is as small and far faster
        zip.add(entry);
        entry.push(new Uint8Array(glb), true);
        if (failed) throw failed;
      }
      if (cancelled) {
        zip.terminate();
        loader.status('Export all cancelled; nothing was saved');
        return;
      }
      zip.end();
      if (failed) throw failed;
      download(new Blob(parts, { type: 'application/zip' }), 'rigscope-export.zip');
      loader.status(`Exported ${plan.length} GLB${plan.length === 1 ? '' : 's'} in one zip`);
    } catch (err) {
      messages.add(`Export all failed: ${err.message}`);
    } finally {
      loader.progress(0, 0);
      setBusy($('export-all-button'), false);
      $('export-all-cancel').hidden = true;
      $('export-all-cancel').textContent = 'Cancel export';
    }
  });
}
