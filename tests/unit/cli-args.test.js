// The command line as command lines are expected to be: strict options (an unknown option or a
// missing value exits 2 naming it, before anything is read), --help on stdout with exit 0, and
// --version. docs/cli.md holds the text `rigscope --help` prints (tests/unit/docs-cli.test.js).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { COMMANDS, usageLine } from '../../web/cli/commands.js';

const root = new URL('../..', import.meta.url).pathname;
const cli = (...args) => spawnSync('node', [`${root}web/cli/rigscope.js`, ...args], { encoding: 'utf8' });
const NAMES = Object.keys(COMMANDS);

describe('rigscope command line', () => {
  it('has the seven commands', () => {
    expect(NAMES).toEqual(['inspect', 'scene', 'convert', 'page', 'bundle', 'poster', 'export']);
  });

  it('refuses an unknown option of every command with exit 2, naming it and the usage', () => {
    for (const name of NAMES) {
      const r = cli(name, 'no-such.psk', '--no-such-option');
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toContain(`${name} does not take --no-such-option`);
      expect(r.stderr, name).toContain(usageLine(name));
      expect(r.stdout, name).toBe('');
    }
  });

  it('names an option given without its value', () => {
    const r = cli('convert', 'x.psk', '-o');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/-o needs a value/);
    const s = cli('scene', 'x.psk', '--lod');
    expect(s.status).toBe(2);
    expect(s.stderr).toMatch(/--lod needs a value/);
    const b = cli('inspect', 'x.psk', '--json=yes');
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/--json takes no value/);
  });

  it('checks option values before reading anything', () => {
    const cases = [
      [['poster', 'x.psk', '-o', 'x.png', '--size', '10x10'], /--size 10x10: width x height/],
      [['poster', 'x.psk', '-o', 'x.png', '--frame', '2', '--time', '1'], /--frame and --time/],
      [['poster', 'x.psk', '-o', 'x.png', '--transparent', '--background', '000000'], /--background and --transparent/],
      [['poster', 'x.psk', '-o', 'x.png', '--camera', '1,2,3'], /--camera 1,2,3: camera position and target/],
      [['bundle', 'x.psk', '-o', 'x.rigscope', '--up', 'left'], /--up left: quarter turns/],
      [['export', 'x', '-o', 'out', '--jobs', '0'], /--jobs 0: a whole number of threads from 1 to 256/],
      [['scene', 'x.psk', '--lod', 'coarse'], /--lod coarse: a level number/],
      [['export', 'x', '-o', 'out', '--posters', '--poster-size', '8x8'], /--poster-size 8x8: width x height/],
      [['export', 'x', '-o', 'out', '--poster-size', '320x240'], /--poster-size goes with --posters/],
      // A value that starts with a dash is the option's (negative numbers are common in cameras).
      [['scene', 'x.psk', '--lod', '-1'], /--lod -1: a level number/],
      [['poster', 'x.psk', '-o', 'x.png', '--camera', '-1,2,-3,0,1'], /--camera -1,2,-3,0,1: camera position and target/],
    ];
    for (const [args, message] of cases) {
      const r = cli(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('prints help on stdout with exit 0: the overview and every command with each option', () => {
    const all = cli('--help');
    expect(all.status).toBe(0);
    for (const name of NAMES) expect(all.stdout).toContain(usageLine(name));
    for (const name of NAMES) {
      const r = cli(name, '--help');
      expect(r.status, name).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain(`usage: ${usageLine(name)}`);
      for (const [option, o] of Object.entries(COMMANDS[name].options))
        expect(r.stdout).toContain(`--${option}${o.value ? ` ${o.value}` : ''}  `);
    }
    expect(cli('poster', '-h').stdout).toContain('--transparent');
  });

  it('prints the package version', () => {
    const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
    const r = cli('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`rigscope ${version}\n`);
  });

  it('refuses no command or an unknown one with exit 2 and the overview', () => {
    for (const args of [[], ['frobnicate', 'x.psk']]) {
      const r = cli(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(usageLine('convert'));
    }
  });
});
