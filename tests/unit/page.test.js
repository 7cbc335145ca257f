// core/page.js: the standalone page is the template with one pack tag appended; a file that is not
// the template (a 404 page fetched by mistake) or already holds a scene is refused.
import { describe, expect, it } from 'vitest';
import { fromBase64Url, packScene, unpackScene } from '../../web/src/core/pack.js';
import { checkTemplate, pageFileName, standalonePage, titleCharacter } from '../../web/src/core/page.js';

const TEMPLATE =
  '<!doctype html>\n<meta name="generator" content="Rigscope standalone page">\n<title>Rigscope</title>\n<script>player</script>\n';

describe('standalone page', () => {
  it('is titled after the character it opens on, the hero, as text', () => {
    const characters = [
      { name: 'octagon_d.3d', hero: false },
      { name: 'UMSMarine_d.3d', hero: true },
    ];
    expect(titleCharacter(characters).name).toBe('UMSMarine_d.3d');
    // The viewer's characters carry the scene's character (`scene.hero`).
    expect(titleCharacter([{ name: 'a' }, { name: 'b', scene: { hero: true } }]).name).toBe('b');
    const html = standalonePage(TEMPLATE, packScene({ files: [], state: {} }), { title: '<img src=x onerror=alert(1)>&"' });
    expect(html).toContain('<title>&lt;img src=x onerror=alert(1)&gt;&amp;&quot; — Rigscope</title>');
    expect(html.match(/<title>/g).length).toBe(1);
  });

  it('appends the pack as the last tag, which unpacks to the files and state given', async () => {
    const files = [{ name: 'a/b.psk', bytes: new Uint8Array([1, 2, 3, 250]) }];
    const html = standalonePage(TEMPLATE, packScene({ files, state: { clip: 'Walk' } }));
    expect(html.startsWith(TEMPLATE)).toBe(true);
    const m = html
      .slice(TEMPLATE.length)
      .match(/^<script type="application\/octet-stream" id="rigscope-pack">([A-Za-z0-9_-]+)<\/script>\n$/);
    expect(m).not.toBeNull();
    const back = await unpackScene(fromBase64Url(m[1]));
    expect(back.state).toEqual({ clip: 'Walk' });
    expect(back.files.map((f) => [f.name, [...f.bytes]])).toEqual([['a/b.psk', [1, 2, 3, 250]]]);
  });

  it('refuses what is not the template, and a page that already holds a scene', () => {
    expect(() => checkTemplate('<!doctype html><title>404 Not Found</title>', 'rigscope-page.html')).toThrow(
      "rigscope-page.html is not Rigscope's standalone page template",
    );
    const page = standalonePage(TEMPLATE, packScene({ files: [], state: {} }));
    expect(() => standalonePage(page, new Uint8Array(1))).toThrow('already holds a scene');
  });

  it('names the file after the character, without paths or characters file systems refuse', () => {
    expect(pageFileName('skSpiderLargeMesh.psk')).toBe('skSpiderLargeMesh.html');
    expect(pageFileName('Models/hero_d.3d')).toBe('Models_hero_d.html');
    expect(pageFileName('a:b*c?"d"<e>|f.pmd')).toBe('a_b_c_d_e_f.html');
    expect(pageFileName('evil\u202egnp.psk')).toBe('evil_gnp.html');
    expect(pageFileName('...')).toBe('rigscope.html');
    expect(pageFileName(undefined)).toBe('rigscope.html');
  });
});
