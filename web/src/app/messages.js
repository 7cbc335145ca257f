// The calm report: problems grouped per file, with a count, collapsible and dismissable at once.
// It sits in a corner of the 3D view, never over the toolbar, the clip list or the timeline.
// File text is untrusted: el() sets text only.
import { baseName } from '../core/files.js';
import { el } from './dom.js';

export class Messages {
  /** @param {HTMLElement} box #messages, holding #messages-toggle, #messages-dismiss, #messages-list */
  constructor(box, source) {
    this.box = box;
    this.source = source; // () => [{ file, text }] from the scene
    this.page = []; // page-level messages (export, links): { file: '', text }
    this.dismissed = new Set();
    this.collapsed = false;
    this.toggle = box.querySelector('#messages-toggle');
    this.list = box.querySelector('#messages-list');
    this.toggle.addEventListener('click', () => {
      this.collapsed = !this.collapsed;
      this.render();
    });
    box.querySelector('#messages-dismiss').addEventListener('click', () => {
      for (const m of this.all()) this.dismissed.add(keyOf(m));
      this.render();
    });
  }

  /** A message that belongs to no file (export failed, a bad link). */
  add(text, file = '') {
    this.page.push({ file, text });
    this.collapsed = false;
    this.render();
  }

  clear() {
    this.page = [];
    this.dismissed.clear();
    this.render();
  }

  all() {
    return [...this.source(), ...this.page].filter((m) => !this.dismissed.has(keyOf(m)));
  }

  render() {
    const messages = this.all();
    this.box.hidden = messages.length === 0;
    if (!messages.length) return;
    const byFile = new Map();
    for (const m of messages) {
      if (!byFile.has(m.file)) byFile.set(m.file, new Map());
      const texts = byFile.get(m.file);
      texts.set(m.text, (texts.get(m.text) ?? 0) + 1); // the same sentence twice is counted, not repeated
    }
    const files = [...byFile.keys()].filter(Boolean).length;
    this.toggle.textContent = `${this.collapsed ? '▸' : '▾'} ${messages.length} message${messages.length === 1 ? '' : 's'}${files ? ` about ${files} file${files === 1 ? '' : 's'}` : ''}`;
    this.toggle.setAttribute('aria-expanded', String(!this.collapsed));
    this.box.classList.toggle('collapsed', this.collapsed);
    const open = byFile.size <= 3;
    // Past a screenful of files, the same sentence about many files is one entry with a count.
    if (byFile.size > MAX_FILE_GROUPS) {
      const byText = new Map();
      for (const m of messages) byText.set(m.text.replace(/^[^:]*: /, ''), [...(byText.get(m.text.replace(/^[^:]*: /, '')) ?? []), m.file]);
      this.list.replaceChildren(
        ...[...byText].map(([text, files]) =>
          el(
            'details',
            {},
            el('summary', {}, text, ' ', el('small', {}, `(${files.length} file${files.length === 1 ? '' : 's'})`)),
            ...files.slice(0, 20).map((f) => el('p', {}, baseName(f))),
            files.length > 20 ? el('p', {}, `… and ${files.length - 20} more`) : null,
          ),
        ),
      );
      return;
    }
    this.list.replaceChildren(
      ...[...byFile].map(([file, texts]) => {
        const count = [...texts.values()].reduce((n, k) => n + k, 0);
        const d = el(
          'details',
          { open },
          el('summary', { title: file }, file ? baseName(file) : 'Rigscope', ' ', el('small', {}, `(${count})`)),
          ...[...texts].map(([text, n]) => el('p', {}, n > 1 ? `${text} (×${n})` : text)),
        );
        return d;
      }),
    );
  }
}

const keyOf = (m) => `${m.file}\n${m.text}`;
/** More files than this with messages are grouped by what the message says. */
const MAX_FILE_GROUPS = 30;
