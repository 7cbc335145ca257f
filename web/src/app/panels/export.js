// Export GLB and Screenshot: both work on copies and never touch playback.
import { el } from '../dom.js';

/** Saves a blob under a file name (the browser's download). */
export function download(blob, name) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function exportPanel({ app, viewer, $, messages, loader }) {
  $('export-button').addEventListener('click', async () => {
    if (!app.characters.length) return messages.add('Nothing to export: load a model first');
    loader.status('Exporting GLB…');
    try {
      const { exportGLB } = await import('../../three/export.js');
      const { glb, problems } = await exportGLB(app.characters, { decoder: app.decoder });
      download(new Blob([glb], { type: 'model/gltf-binary' }), `${app.characters[0].name.replace(/\.[^.]*$/, '')}.glb`);
      loader.status(`Exported ${(glb.byteLength / 1024).toFixed(0)} KB`);
      for (const p of problems) messages.add(`Export: ${p}`);
    } catch (err) {
      messages.add(`Export failed: ${err.message}`);
    }
  });
  $('screenshot-button').addEventListener('click', () => {
    viewer.render();
    viewer.renderer.domElement.toBlob((blob) => download(blob, 'rigscope.png'), 'image/png');
  });
}
