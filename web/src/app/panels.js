// Side panels: clip list, info (counts, warnings, bone matches), file report, morph sliders.
// Long lists are built in slices (panels/slices.js): a drop of thousands of files has a row each.
// Every string that comes from a file is set with textContent: names are untrusted, and shown with
// their invisible and direction-changing characters written out (displayName).
import { baseName } from '../core/files.js';
import { fileStatuses } from '../core/report.js';
import { textureButton } from './texture-viewer.js';
import { el } from './dom.js';
import { fillList } from './panels/slices.js';

const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(3).replace(/\.?0+$/, ''));

/**
 * The clip list: a group line per character (when there are several), a row per clip that
 * matches the search. Rows are built in slices (a drop of a thousand characters has thousands of
 * clips); choosing a clip or moving the time only moves the mark, it does not build the list again.
 * One listener on the list picks a clip for every row.
 */
export class ClipList {
  constructor(list, app) {
    Object.assign(this, { list, app });
    this.rows = new Map(); // clip -> its row
    this.pickOf = new WeakMap(); // row -> [character, clip]
    this.marked = null;
    const pick = (e) => {
      const target = this.pickOf.get(e.target.closest?.('li[role=option]'));
      if (target) app.select(...target);
    };
    list.addEventListener('click', pick);
    list.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      pick(e);
    });
  }

  /** Builds the list again: after a load, a clear, or a new search. */
  render(filter = '') {
    const { app } = this;
    const q = filter.trim().toLowerCase();
    const items = [];
    for (const character of app.characters) {
      const clips = character.clips.filter((c) => !q || c.name.toLowerCase().includes(q));
      if (!clips.length) continue;
      if (app.characters.length > 1) items.push({ character });
      for (const clip of clips) items.push({ character, clip });
    }
    this.rows = new Map();
    this.marked = null;
    const empty = app.characters.length ? 'No clips' : 'Nothing loaded';
    return fillList(this.list, items, (item) => this._row(item), {
      done: (list) => {
        if (!list.children.length) list.append(el('li', { class: 'group' }, empty));
      },
    });
  }

  _row({ character, clip }) {
    if (!clip) return el('li', { class: 'group', role: 'presentation' }, character.name);
    const selected = this.app.current?.clip === clip;
    const li = el(
      'li',
      { role: 'option', tabIndex: 0, 'aria-selected': String(selected), title: `${clip.name}\n${clip.source}` },
      el('span', {}, clip.name),
      el('small', {}, `${clip.frameCount} fr @ ${fmt(clip.fps)} fps`),
    );
    li.dataset.clip = clip.name;
    this.rows.set(clip, li);
    this.pickOf.set(li, [character, clip]);
    if (selected) this.marked = li;
    return li;
  }

  /** Marks the current clip's row (built now or later) and unmarks the one before. */
  mark() {
    const li = this.rows.get(this.app.current?.clip) ?? null;
    if (li === this.marked) return;
    this.marked?.setAttribute('aria-selected', 'false');
    li?.setAttribute('aria-selected', 'true');
    this.marked = li;
  }
}

function countsTable(counts) {
  const t = el('table');
  for (const [k, v] of Object.entries(counts ?? {})) t.append(el('tr', {}, el('td', {}, k), el('td', {}, fmt(v))));
  return t;
}

/** A model's counts, info and warnings. */
function modelInfo(model) {
  const box = el('section', { class: 'info-item' });
  box.append(el('h2', {}, `${baseName(model.file)} (${model.format.toUpperCase()})`));
  box.append(countsTable(model.counts));
  for (const [k, v] of Object.entries(model.info ?? {})) box.append(el('div', { class: 'muted' }, `${k}: ${v}`));
  for (const w of model.warnings) box.append(el('div', { class: 'warn' }, `⚠ ${w}`));
  return box;
}

/** Prop points (0 A.D.), sockets: name, the bone they follow, what hangs on them. */
function attachmentInfo(character) {
  const props = el('ul', { class: 'muted props' });
  for (const a of character.attachments) {
    const bone = a.bone >= 0 ? (character.bones[a.bone]?.userData.sourceName ?? `bone ${a.bone}`) : 'model origin';
    const on = a.node.children.filter((o) => o.isGroup && o.name).map((o) => o.name);
    props.append(el('li', {}, `${a.name} — ${bone}${on.length ? ` — holds ${on.join(', ')}` : ''}`));
  }
  return el('section', { class: 'info-item' }, el('div', { class: 'muted' }, `attachment points: ${character.attachments.length}`), props);
}

/** How an animation's bones matched the mesh it plays on. */
function animationInfo(character, a) {
  const some = (names) => `${names.length} — ${names.slice(0, 12).join(', ')}${names.length > 12 ? '…' : ''}`;
  const box = el('section', { class: 'info-item' }, el('h2', {}, `${baseName(a.file)} → ${character.name}`));
  box.append(el('div', { class: 'muted' }, `bones matched: ${a.matched} of ${a.total} (by ${a.by})`));
  if (a.missing.length) box.append(el('div', { class: 'muted' }, `mesh bones without a track (bind pose): ${some(a.missing)}`));
  if (a.extra.length) box.append(el('div', { class: 'muted' }, `animation bones not in the mesh: ${some(a.extra)}`));
  return box;
}

/**
 * The info panel: per character, a section per model, its attachment points and its animations'
 * bone matches (in slices: one character may hold a folder of 150 models), then the load's time.
 */
export function renderInfo(box, app) {
  const items = [];
  for (const character of app.characters) {
    for (const model of character.models) items.push(() => modelInfo(model));
    if (character.attachments.length && !character.textureBoard) items.push(() => attachmentInfo(character));
    for (const a of character.scene?.animations ?? []) if (a.anim) items.push(() => animationInfo(character, a)); // not the mesh's own vertex animation
  }
  return fillList(box, items, (make) => make(), {
    done: () => {
      if (app.characters.length) box.append(el('div', { class: 'muted' }, `decode + build: ${app.lastDecodeMs.toFixed(0)} ms`));
    },
  });
}

/** Decoded textures by the path of the file they came from (a file may hold several). */
function texturesByPath(textures) {
  const out = new Map();
  for (const t of textures) {
    const list = out.get(t.path);
    if (list) list.push(t);
    else out.set(t.path, [t]);
  }
  return out;
}

/** The files panel: per drop, a line per file with what became of it, and its textures' view buttons. */
export function renderFilesReport(box, app) {
  let textures = null;
  const items = () => {
    textures = texturesByPath(app.textures);
    return app.reports.flatMap((r) => [
      { report: r },
      ...fileStatuses(r.files, app.scene?.records ?? r.records).map((status) => ({ status })),
    ]);
  };
  const count = app.reports.reduce((n, r) => n + 1 + r.files.length, 0);
  let list = null;
  return fillList(
    box,
    items,
    ({ report, status }) => {
      if (report) {
        list = el('ul', { class: 'files-status' });
        return [el('h2', {}, `${report.files.length} file${report.files.length === 1 ? '' : 's'}`), list];
      }
      // Decoded textures of the file open in the texture viewer.
      const views = (textures.get(status.file) ?? []).map((t) => textureButton(t, app.decoder));
      list.append(el('li', { class: status.problem ? 'problem' : 'used', title: status.file }, status.lines.join('; '), ...views));
      return null;
    },
    { count },
  );
}

/** A slider per morph target of every mesh that has them. */
/** Each morph list's sliders -> { mesh, i }, made again at each render (see renderMorphs). */
const morphsOf = new WeakMap();

/** The one listener of a morph list (a function of its own: its closure holds no render's sliders). */
function listenToMorphs(box, app) {
  box.addEventListener('input', (e) => {
    const target = morphsOf.get(box).get(e.target);
    if (!target) return;
    target.mesh.morphTargetInfluences[target.i] = Number(e.target.value);
    app.viewer.requestRender?.();
  });
}

export function renderMorphs(box, app) {
  const items = [];
  for (const character of app.characters)
    for (const mesh of character.meshes)
      for (const [name, i] of Object.entries(mesh.morphTargetDictionary ?? {})) items.push({ mesh, name, i });
  // One listener on the list, and the sliders' targets in a map made again at each render: no
  // slider holds a closure over its mesh, since Chromium may keep a removed row alive (a closed
  // panel's last layout), and a cleared drop's morph arrays would stay with it.
  if (!morphsOf.has(box)) listenToMorphs(box, app);
  const sliders = new Map();
  morphsOf.set(box, sliders);
  // A slider is costly to make (a range input's inner parts): a dozen at once, more in slices.
  return fillList(
    box,
    items,
    ({ mesh, name, i }) => {
      const input = el('input', { type: 'range', min: 0, max: 1, step: 0.01, value: mesh.morphTargetInfluences[i] });
      input.setAttribute('aria-label', `Morph ${name}`);
      sliders.set(input, { mesh, i });
      return el('label', {}, `${name} `, input);
    },
    { atOnce: 12 },
  );
}
