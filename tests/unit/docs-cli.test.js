// docs/cli.md says what the program says: it holds `rigscope --help` word for word, has a section
// per command, and each section's option table names exactly the options `rigscope COMMAND --help`
// lists (every option of the program is documented, and the page documents no option it lacks).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url).pathname;
const cli = (...args) => spawnSync('node', [`${root}web/cli/rigscope.js`, ...args], { encoding: 'utf8' });
const page = readFileSync(`${root}docs/cli.md`, 'utf8');

/** The commands `rigscope --help` lists, in its order. */
const commandsOf = (overview) => [...overview.matchAll(/^rigscope (\w+) /gm)].map((m) => m[1]).filter((c) => c !== 'COMMAND');

/** The flags (`-o`, `--out`…) of the options list `rigscope COMMAND --help` prints, sorted. */
function helpFlags(help) {
  const list = help.slice(help.indexOf('\noptions:\n'));
  return [...list.matchAll(/^ {2}(-[^ ,]+(?:, -[^ ,]+)?)/gm)].flatMap((m) => m[1].split(', ')).sort();
}

/** The sections of a markdown page under `## \`NAME\`` headings, by name. */
function sections(markdown) {
  const out = new Map();
  const parts = markdown.split(/^## /m).slice(1);
  for (const part of parts) {
    const name = part.match(/^`([\w-]+)`\n/)?.[1];
    if (name) out.set(name, part);
  }
  return out;
}

/** The flags of a section's option table: the first cell's code spans, each up to its first space. */
function tableFlags(section) {
  const rows = section.split('\n').filter((l) => /^\| `-/.test(l));
  return rows.flatMap((row) => [...row.split(/(?<!\\)\|/)[1].matchAll(/`(-[^` ]+)[^`]*`/g)].map((m) => m[1])).sort();
}

describe('docs/cli.md', () => {
  const overview = cli('--help').stdout;
  const commands = commandsOf(overview);

  it('holds exactly what rigscope --help prints', () => {
    expect(commands).toEqual(['inspect', 'scene', 'convert', 'page', 'bundle', 'poster', 'export']);
    expect(page).toContain(overview);
  });

  it('has a section for every command and none for a command the program lacks', () => {
    expect([...sections(page).keys()].sort()).toEqual([...commands].sort());
  });

  it.each(['inspect', 'scene', 'convert', 'page', 'bundle', 'poster', 'export'])(
    '%s: its option table names the options of its --help, and no other',
    (command) => {
      const help = cli(command, '--help');
      expect(help.status).toBe(0);
      const documented = tableFlags(sections(page).get(command) ?? '');
      expect(documented).toEqual(helpFlags(help.stdout));
    },
  );

  it('finds a missing or an extra option (the check can fail)', () => {
    const help =
      'usage: rigscope x\n\noptions:\n  -o, --out OUT.glb  the GLB\n  --json             as JSON\n  -h, --help         this help\n';
    expect(helpFlags(help)).toEqual(['--help', '--json', '--out', '-h', '-o']);
    const section =
      'x\n\n| option | meaning |\n|---|---|\n| `-o`, `--out OUT.glb` | the GLB |\n| `--jsn` | typo |\n| `--lod N\\|all` | a level |\n| `-h`, `--help` | this help |\n';
    expect(tableFlags(section)).not.toEqual(helpFlags(help));
    expect(tableFlags(section)).toEqual(['--help', '--jsn', '--lod', '--out', '-h', '-o']);
  });
});
