// The scene outliner: every character and static model with its visibility, isolate (solo) and
// frame-on-select, then the files that were not used and why. Names are file text: el() sets text.
// A drop of a thousand characters has a thousand rows: they are built in slices, a filter box
// narrows them, and showing, hiding or choosing a clip updates the rows in place instead of
// building them again. One listener on the list serves every row's controls.
import { el } from './dom.js';
import { describeRecord } from '../core/report.js';
import { fillList } from './panels/slices.js';

const setAttribute = (e, name, value) => e.getAttribute(name) !== value && e.setAttribute(name, value);

const UNUSED = new Set(['unused', 'refused', 'unbound', 'missing']);

/** What a character is, in a word or two. */
const noteOf = (c) =>
  c.textureBoard
    ? 'textures'
    : c.scene?.enclosing
      ? 'scenery, seen from inside'
      : c.clips.length
        ? `${c.clips.length} clip${c.clips.length === 1 ? '' : 's'}`
        : 'static';

/** The package and group a character's mesh lives in (`Pkg.Group`), for an object of a container; else ''. */
const whereOf = (c) => {
  const at = c.scene?.host?.container;
  return at?.package ? `${at.package}${at.group ? `.${at.group}` : ''}` : '';
};

/** The files not used, grouped by kind and reason. */
function unusedGroups(records) {
  const byReason = new Map();
  for (const r of records) {
    if (!UNUSED.has(r.kind)) continue;
    const key = `${r.kind}\n${r.reason}`;
    const list = byReason.get(key);
    if (list) list.push(r);
    else byReason.set(key, [r]);
  }
  return [...byReason.values()];
}

/** A group's lines: one per file, or one with a count for many files of the same reason (a folder of notes, a zip of junk). */
const unusedNote = (list) =>
  list.length > 3
    ? el(
        'li',
        {
          class: 'unused',
          title: list
            .slice(0, 50)
            .map((r) => r.files[0])
            .join('\n'),
        },
        `${list.length} files: ${describeRecord(list[0]).replace(/^[^:]*: /, '')}`,
      )
    : list.map((r) => el('li', { class: 'unused' }, describeRecord(r)));

export class Outliner {
  constructor(list, app, { onFrame }) {
    Object.assign(this, { list, app, onFrame });
    this.rows = new Map(); // character -> { li, visible, name, solo }
    this.characterOf = new WeakMap(); // row -> character
    this.filter = el('input', { type: 'search', class: 'outliner-filter', placeholder: 'Filter models', 'aria-label': 'Filter models' });
    this.count = el('span', { class: 'muted outliner-count', 'aria-live': 'polite' });
    this.tools = el('div', { class: 'outliner-tools', hidden: true }, this.filter, this.count);
    list.before(this.tools);
    this.filter.addEventListener('input', () => this.applyFilter());
    list.addEventListener('click', (e) => this._onClick(e));
    list.addEventListener('change', (e) => {
      const c = this.characterOf.get(e.target.closest('li'));
      if (c && e.target.type === 'checkbox') app.setVisible(c, e.target.checked);
    });
  }

  _onClick(e) {
    const button = e.target.closest('button');
    const c = button && this.characterOf.get(button.closest('li'));
    if (!c) return;
    if (button.classList.contains('solo')) this.app.isolate(c);
    else if (button.classList.contains('name')) {
      // The model named becomes the selected one, so PgDn steps on from it.
      this.app.choose(c);
      this.onFrame(c);
    }
  }

  /** Builds every row again: after a load, a clear, a texture assignment. */
  render() {
    const { app } = this;
    this.rows = new Map();
    // The filter shows once there are enough rows to want one.
    this.tools.hidden = app.characters.length < 8 && !this.filter.value;
    this.alone = this._alone();
    // The characters' rows, then the notes on files not used (a drop may hold hundreds).
    const items = [...app.characters, ...unusedGroups(app.scene?.records ?? [])];
    return fillList(this.list, items, (item) => (Array.isArray(item) ? unusedNote(item) : this._row(item)), {
      done: (list) => {
        if (!app.characters.length) list.append(el('li', { class: 'unused' }, 'Nothing loaded'));
        this.applyFilter();
      },
    });
  }

  _row(c) {
    // An object of a container (a mesh in a UE1 package) says where it lives: package and group.
    const where = whereOf(c);
    const visible = el('input', { type: 'checkbox', checked: c.root.visible, 'aria-label': `Show ${c.name}` });
    const name = el('button', { type: 'button', class: 'name', title: `Frame ${c.name}${where ? ` (${where})` : ''}` }, c.name);
    const solo = el('button', { type: 'button', class: 'solo' }, 'Solo');
    const li = el('li', { class: 'model' }, visible, name, el('small', {}, where ? `${noteOf(c)} · ${where}` : noteOf(c)), solo);
    const row = { li, visible, name, solo, text: `${c.name}${where ? ` ${where}` : ''}`.toLowerCase() };
    this.rows.set(c, row);
    this.characterOf.set(li, c);
    this._mark(c, row, this.alone);
    if (this.filter.value) li.hidden = !row.text.includes(this.filter.value.trim().toLowerCase());
    return li;
  }

  /** The one character shown alone, if only one of several is visible. */
  _alone() {
    const shown = this.app.characters.filter((c) => c.root.visible);
    return shown.length === 1 && this.app.characters.length > 1 ? shown[0] : null;
  }

  /** Sets what a row says of its character; only what changed, so a thousand rows restyle only where they differ. */
  _mark(c, { visible, name, solo }, alone) {
    if (visible.checked !== c.root.visible) visible.checked = c.root.visible;
    setAttribute(name, 'aria-current', String(this.app.selected === c));
    setAttribute(solo, 'aria-pressed', String(alone === c));
    const title = alone === c ? 'Show everything again' : `Show ${c.name} alone`;
    if (solo.title !== title) solo.title = title;
  }

  /** After a clip choice or a visibility change: the rows say which is current, shown and alone. */
  mark() {
    this.alone = this._alone();
    for (const [c, row] of this.rows) this._mark(c, row, this.alone);
  }

  /** Shows the rows whose name holds the filter text (the notes on unused files stay). */
  applyFilter() {
    const q = this.filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of this.rows.values()) {
      row.li.hidden = q !== '' && !row.text.includes(q);
      if (!row.li.hidden) shown++;
    }
    this.count.textContent = q ? `${shown} of ${this.rows.size}` : '';
  }
}
