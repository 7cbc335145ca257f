import { describe, expect, it } from 'vitest';
import { matchBonesByCount, matchBonesByName } from '../../web/src/core/match.js';

describe('bone matching', () => {
  it('maps identical lists by index, duplicates included', () => {
    const names = ['bip01', 'bip01 Head', 'bip01 Head', 'tail'];
    const r = matchBonesByName(names, ['BIP01', 'bip01 head ', 'bip01 Head', 'Tail']);
    expect(r.byIndex).toBe(true);
    expect([...r.map]).toEqual([0, 1, 2, 3]);
  });

  it('matches by name case-insensitively, trims trailing spaces, consumes duplicates in order', () => {
    const r = matchBonesByName(['Root', 'Spine', 'Dup', 'Dup', 'Hand'], ['dup', 'ROOT  ', 'dup', 'Dup', 'Face']);
    expect(r.byIndex).toBe(false);
    expect([...r.map]).toEqual([2, 0, 3, -1, -1]);
    expect(r.matched).toBe(3);
    expect(r.extra).toEqual(['Dup', 'Face']);
    expect(r.missing).toEqual(['Spine', 'Hand']);
  });

  it('binds 0 A.D. animations by count and refuses a mismatch naming both counts', () => {
    expect(matchBonesByCount(25, 29, 'rich-man_idle.psa', 'rich-man.pmd').error).toBe(
      'animation rich-man_idle.psa has 29 bones, model rich-man.pmd has 25',
    );
    expect([...matchBonesByCount(3, 3, 'a', 'b').map]).toEqual([0, 1, 2]);
  });
});
