// The level-of-detail control in the Scene panel: shown only when a part of the scene has levels
// (UE Viewer's X, X_Lod1, X_Lod2…). LOD 0, the finest, is shown by default; "All levels" shows every
// level as a part of its own, as `rigscope --lod all` exports them.
import { charactersWithProps } from '../../core/scene.js';
import { el } from '../dom.js';

/** The highest level any part of the scene has, or -1 when no part has levels. */
function deepestLevel(scene) {
  let deepest = -1;
  for (const c of scene ? charactersWithProps(scene) : [])
    for (const p of c.parts) for (const l of p.lod?.levels ?? []) deepest = Math.max(deepest, l.level);
  return deepest;
}

export function lodPanel({ app, $ }) {
  const row = $('lod-row');
  const select = $('lod');
  const refresh = () => {
    const deepest = deepestLevel(app.scene);
    row.hidden = deepest < 0;
    if (deepest < 0) return;
    const options = [];
    for (let level = 0; level <= deepest; level++)
      options.push(el('option', { value: String(level) }, level ? `LOD ${level}` : 'LOD 0 (finest)'));
    // A link may ask for a level past the deepest (lod=7): parts show their coarsest, and it is named.
    if (Number.isInteger(app.lod) && app.lod > deepest)
      options.push(el('option', { value: String(app.lod) }, `LOD ${app.lod} (coarsest shown)`));
    options.push(el('option', { value: 'all' }, 'All levels'));
    select.replaceChildren(...options);
    select.value = String(app.lod);
  };
  select.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await app.setLod(select.value === 'all' ? 'all' : Number(select.value));
    } finally {
      select.disabled = false;
    }
  });
  app.on('loaded', refresh);
  app.on('cleared', refresh);
}
