// The scene outliner: every character and static model with its visibility, isolate (solo) and
// frame-on-select, then the files that were not used and why. Names are file text: el() sets text.
import { el } from './dom.js';
import { describeRecord } from '../core/report.js';

export function renderOutliner(list, app, { onFrame }) {
  const rows = app.characters.map((c) => {
    const visible = el('input', { type: 'checkbox', checked: c.root.visible, 'aria-label': `Show ${c.name}` });
    visible.addEventListener('change', () => app.setVisible(c, visible.checked));
    const current = app.current?.character === c;
    const name = el('button', { type: 'button', class: 'name', title: `Frame ${c.name}`, 'aria-current': String(current) }, c.name);
    name.addEventListener('click', () => onFrame(c));
    const alone = c.root.visible && app.characters.every((x) => x === c || !x.root.visible) && app.characters.length > 1;
    const solo = el(
      'button',
      { type: 'button', class: 'solo', 'aria-pressed': String(alone), title: alone ? 'Show everything again' : `Show ${c.name} alone` },
      'Solo',
    );
    solo.addEventListener('click', () => app.isolate(c));
    const note = c.textureBoard
      ? 'textures'
      : c.scene?.enclosing
        ? 'scenery, seen from inside'
        : c.clips.length
          ? `${c.clips.length} clip${c.clips.length === 1 ? '' : 's'}`
          : 'static';
    return el('li', {}, visible, name, el('small', {}, note), solo);
  });
  const unused = (app.scene?.records ?? []).filter(
    (r) => r.kind === 'unused' || r.kind === 'refused' || r.kind === 'unbound' || r.kind === 'missing',
  );
  // Many files for the same reason (a folder of notes, a zip of junk) are one line with a count.
  const byReason = new Map();
  for (const r of unused) byReason.set(`${r.kind}\n${r.reason}`, [...(byReason.get(`${r.kind}\n${r.reason}`) ?? []), r]);
  const notes = [...byReason.values()].flatMap((list) =>
    list.length > 3
      ? [
          el(
            'li',
            {
              class: 'unused',
              title: list
                .slice(0, 50)
                .map((r) => r.files[0])
                .join('\n'),
            },
            `${list.length} files: ${describeRecord(list[0]).replace(/^[^:]*: /, '')}`,
          ),
        ]
      : list.map((r) => el('li', { class: 'unused' }, describeRecord(r))),
  );
  list.replaceChildren(...rows, ...notes);
  if (!rows.length) list.append(el('li', { class: 'unused' }, 'Nothing loaded'));
}
