// Side panels: clip list, info (counts, warnings, bone matches), file report, morph sliders.
// Every string that comes from a file is set with textContent: names are untrusted, and shown with
// their invisible and direction-changing characters written out (displayName).
import { baseName } from '../core/files.js';
import { fileStatuses } from '../core/report.js';
import { textureButton } from './texture-viewer.js';
import { el } from './dom.js';

const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(3).replace(/\.?0+$/, ''));

export function renderClipList(list, app, filter = '') {
  list.replaceChildren();
  const q = filter.trim().toLowerCase();
  for (const character of app.characters) {
    const clips = character.clips.filter((c) => !q || c.name.toLowerCase().includes(q));
    if (!clips.length) continue;
    if (app.characters.length > 1) list.append(el('li', { class: 'group', role: 'presentation' }, character.name));
    for (const clip of clips) {
      const selected = app.current?.clip === clip;
      const li = el(
        'li',
        { role: 'option', tabIndex: 0, 'aria-selected': String(selected), title: `${clip.name}\n${clip.source}` },
        el('span', {}, clip.name),
        el('small', {}, `${clip.frameCount} fr @ ${fmt(clip.fps)} fps`),
      );
      li.dataset.clip = clip.name;
      const pick = () => app.select(character, clip);
      li.addEventListener('click', pick);
      li.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          pick();
        }
      });
      list.append(li);
    }
  }
  if (!list.children.length) list.append(el('li', { class: 'group' }, app.characters.length ? 'No clips' : 'Nothing loaded'));
}

function countsTable(counts) {
  const t = el('table');
  for (const [k, v] of Object.entries(counts ?? {})) t.append(el('tr', {}, el('td', {}, k), el('td', {}, fmt(v))));
  return t;
}

export function renderInfo(box, app) {
  box.replaceChildren();
  for (const character of app.characters) {
    for (const model of character.models) {
      box.append(el('h2', {}, `${baseName(model.file)} (${model.format.toUpperCase()})`));
      box.append(countsTable(model.counts));
      for (const [k, v] of Object.entries(model.info ?? {})) box.append(el('div', { class: 'muted' }, `${k}: ${v}`));
      for (const w of model.warnings) box.append(el('div', { class: 'warn' }, `⚠ ${w}`));
    }
    if (character.attachments.length && !character.textureBoard) {
      // Prop points (0 A.D.), sockets: name, the bone they follow, what hangs on them.
      const props = el('ul', { class: 'muted props' });
      for (const a of character.attachments) {
        const bone = a.bone >= 0 ? (character.bones[a.bone]?.userData.sourceName ?? `bone ${a.bone}`) : 'model origin';
        const on = a.node.children.filter((o) => o.isGroup && o.name).map((o) => o.name);
        props.append(el('li', {}, `${a.name} — ${bone}${on.length ? ` — holds ${on.join(', ')}` : ''}`));
      }
      box.append(el('div', { class: 'muted' }, `attachment points: ${character.attachments.length}`), props);
    }
    for (const a of character.scene?.animations ?? []) {
      if (!a.anim) continue; // the mesh's own vertex animation
      box.append(el('h2', {}, `${baseName(a.file)} → ${character.name}`));
      box.append(el('div', { class: 'muted' }, `bones matched: ${a.matched} of ${a.total} (by ${a.by})`));
      if (a.missing.length)
        box.append(
          el(
            'div',
            { class: 'muted' },
            `mesh bones without a track (bind pose): ${a.missing.length} — ${a.missing.slice(0, 12).join(', ')}${a.missing.length > 12 ? '…' : ''}`,
          ),
        );
      if (a.extra.length)
        box.append(
          el(
            'div',
            { class: 'muted' },
            `animation bones not in the mesh: ${a.extra.length} — ${a.extra.slice(0, 12).join(', ')}${a.extra.length > 12 ? '…' : ''}`,
          ),
        );
    }
  }
  if (app.characters.length) {
    box.append(el('div', { class: 'muted' }, `decode + build: ${app.lastDecodeMs.toFixed(0)} ms`));
  }
}

export function renderFilesReport(box, app) {
  box.replaceChildren();
  for (const r of app.reports) {
    box.append(el('h2', {}, `${r.files.length} file${r.files.length === 1 ? '' : 's'}`));
    const list = el('ul', { class: 'files-status' });
    for (const s of fileStatuses(r.files, app.scene?.records ?? r.records)) {
      // Decoded textures of the file open in the texture viewer.
      const views = app.textures.filter((t) => t.path === s.file).map((t) => textureButton(t, app.decoder));
      list.append(el('li', { class: s.problem ? 'problem' : 'used', title: s.file }, s.lines.join('; '), ...views));
    }
    box.append(list);
  }
}

export function renderMorphs(box, app) {
  box.replaceChildren();
  for (const character of app.characters) {
    for (const mesh of character.meshes) {
      if (!mesh.morphTargetDictionary) continue;
      for (const [name, i] of Object.entries(mesh.morphTargetDictionary)) {
        const input = el('input', { type: 'range', min: 0, max: 1, step: 0.01, value: mesh.morphTargetInfluences[i] });
        input.setAttribute('aria-label', `Morph ${name}`);
        input.addEventListener('input', () => {
          mesh.morphTargetInfluences[i] = Number(input.value);
          app.viewer.requestRender?.();
        });
        box.append(el('label', {}, `${name} `, input));
      }
    }
  }
}
