// Report records to text, where text is shown (the page's Files panel and messages, the CLI).
// Records are { kind, files, via?, reason, needs?, best? }; files are paths in the drop.
import { baseName } from './files.js';

const name = (path) => baseName(String(path));

/** One line for a record, naming files by base name (`paths: true` for full paths). */
export function describeRecord(r, { paths = false } = {}) {
  const f = (p) => (paths ? String(p) : name(p));
  const [a, b] = r.files;
  switch (r.kind) {
    case 'refused':
      return `${r.files.map(f).join(', ')}: ${r.reason}`;
    case 'missing':
      return `${f(a)}: missing ${r.needs}${r.reason ? ` (${r.reason})` : ''}`;
    case 'unused':
      return `${f(a)}: not used — ${r.reason}`;
    case 'unbound':
      return `${f(a)}: not played on any model — ${r.reason}${r.best ? ` (closest: ${f(r.best)})` : ''}`;
    case 'paired':
      return `${r.files.map(f).join(' ↔ ')}${r.via ? ` (${r.via})` : ''}`;
    case 'bound':
      return `${f(a)} → ${f(b)} (${r.reason}${r.via === 'actor' ? ', by the actor' : ''})`;
    case 'part':
      return `${f(a)} → ${r.reason}`;
    case 'texture':
      return `${f(a)} → ${r.reason} (${r.via})`;
    default:
      return `${r.files.map(f).join(', ')}: ${r.reason ?? r.kind}`;
  }
}

/** Problems a person should see: refused, missing and unbound files. */
export const isProblem = (r) => r.kind === 'refused' || r.kind === 'missing' || r.kind === 'unbound';

/**
 * Each file's status in a drop: what it was used as, paired with, or why it was not used.
 * @returns {{ file: string, problem: boolean, lines: string[] }[]} in the drop's order
 */
export function fileStatuses(files, records) {
  const out = new Map(files.map((f) => [f, { file: f, problem: false, lines: [] }]));
  for (const r of records) {
    for (const f of r.files) {
      const s = out.get(f);
      if (!s) continue;
      if (isProblem(r) || r.kind === 'unused') s.problem = true;
      const line = describeRecord(r);
      if (!s.lines.includes(line)) s.lines.push(line);
    }
  }
  for (const s of out.values()) if (!s.lines.length) s.lines.push(`${name(s.file)}: used`);
  return [...out.values()];
}
