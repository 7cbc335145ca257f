// A drop drawn early from part of its files may give a material a texture (the only texture so
// far) that the whole drop does not: the last drawing takes it away again, so what is drawn does
// not depend on the order the files were read in.
import { describe, expect, it } from 'vitest';
import { App } from '../../web/src/app/app.js';
import { decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { decoder, fakeViewer, fixture } from './helpers.js';

const drop = (names) =>
  decodeFiles(
    names.map(([path, file]) => entryFromBytes(path, fixture(file))),
    decoderHost,
  );
let decoderHost;

describe('textures of a drop drawn early', () => {
  it('a texture chosen from part of the drop is taken away when the whole drop gives none', async () => {
    decoderHost = await decoder();
    const model = ['mod/static.pskx', 'static.pskx'];
    const alone = await drop([model]);
    const whole = await drop([model, ['mod/banner.tga', 'image_rgb24.tga'], ['mod/other.tga', 'image_grey.tga']]);
    // What the page draws early: the same decodes, only part of the files read so far.
    const part = { ...whole, textures: whole.textures.filter((t) => t.name === 'banner.tga') };
    const untextured = new App(fakeViewer(), decoderHost);
    await untextured._assemble(alone);
    const plain = untextured.characters[0].materials[0];

    const app = new App(fakeViewer(), decoderHost);
    await app._assemble(part); // the only texture with the only material
    const character = app.characters[0];
    const material = character.materials[0];
    expect(app.scene.characters[0].materials[0].rule).toBe('only texture');
    expect(material.map?.name).toBe('banner.tga');

    await app._assemble(whole); // two textures, neither named for it
    expect(app.characters[0]).toBe(character); // the same character, kept
    expect(app.scene.characters[0].materials[0].texture).toBeNull();
    expect(material.map).toBeNull();
    expect(material.color.getHex()).toBe(plain.color.getHex());
    expect(material.userData.record).toBeNull();
  });
});
