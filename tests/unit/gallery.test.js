// The gallery `export --posters` writes: names from files are text, never markup; links are
// relative and percent-encoded, so names with spaces, '#' or '?' still open from disk.
import { describe, expect, it } from 'vitest';
import { escapeHtml, galleryPage, relativeUrl } from '../../web/cli/gallery.js';
import { posterPath } from '../../web/cli/export-posters.js';

const row = (name, file, extra = {}) => ({
  name,
  file,
  clips: ['Walk', '<b>Run</b>'],
  status: 'written',
  poster: posterPath(file),
  posterSize: { width: 160, height: 120 },
  ...extra,
});

describe('export gallery', () => {
  const result = {
    folders: [
      {
        folder: '/mods/<evil> & "co"',
        out: 'mods/evil',
        characters: [
          row('<img src=x onerror=alert(1)>', 'mods/evil/a b#1?.glb'),
          row('Planned', 'mods/evil/p.glb', { status: 'planned', poster: undefined }),
          row('Kept', 'mods/evil/k.glb', { status: 'skipped', poster: undefined }),
        ],
      },
      { folder: '/empty', out: 'empty', characters: [] },
    ],
  };
  const html = galleryPage(result);

  it('escapes every text from files', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;b&gt;Run&lt;/b&gt;');
    expect(html).toContain('from /mods/&lt;evil&gt; &amp; &quot;co&quot;');
    expect(html).not.toMatch(/<script/i);
    expect(escapeHtml(`'`)).toBe('&#39;');
  });

  it('links each poster and GLB relatively, percent-encoded', () => {
    expect(posterPath('mods/evil/a b#1?.glb')).toBe('mods/evil/a b#1?.png');
    expect(relativeUrl('mods/evil/a b#1?.glb')).toBe('mods/evil/a%20b%231%3F.glb');
    expect(html).toContain('href="mods/evil/a%20b%231%3F.glb"');
    expect(html).toContain('src="mods/evil/a%20b%231%3F.png" width="160" height="120"');
  });

  it('lists characters with a GLB (written or kept), a card without a poster when none was drawn', () => {
    expect(html).not.toContain('Planned');
    expect(html).toContain('href="mods/evil/k.glb"');
    expect(html).toContain('no poster');
    expect(html).toContain('2 character(s) in 1 folder(s)');
  });
});
