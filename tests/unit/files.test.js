import { describe, expect, it } from 'vitest';
import { extension, stem, textureKey } from '../../web/src/core/files.js';

describe('file names', () => {
  it('derives texture keys without folders, extensions or 0 A.D. archive suffixes', () => {
    expect(textureKey('art/textures/skins/props/Barrel.png.cached.dds')).toBe('barrel');
    expect(textureKey('MODELS\\Bottle1.PCX')).toBe('bottle1');
    expect(textureKey('m_rifl.bmp')).toBe('m_rifl');
    expect(textureKey('Jtex1')).toBe('jtex1');
  });
  it('splits stems and extensions', () => {
    expect(stem('a/b/skSpider.PSA')).toBe('skSpider');
    expect(extension('x/Y.ZIP')).toBe('zip');
  });
});
