// Shared looks (three/shared-programs.js): an opaque viewer material reads to three as two-sided and
// not alpha-tested while a renderer given to shareLooks chooses its program, and as itself
// everywhere else, the GL state three sets for it included. The pictures are compared in the
// browser (tests/e2e/programs.test.js); here, what each reader sees.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { sharePrograms, shareLooks } from '../../web/src/three/shared-programs.js';

/** A stand-in for a WebGLRenderer: what its draw, its compile and its GL state setting read of `material`. */
function fakeRenderer(material) {
  const seen = {};
  const read = () => ({ side: material.side, alphaTest: material.alphaTest });
  const renderer = {
    state: { setMaterial: () => (seen.state = read()) },
    render() {
      seen.render = read();
      this.state.setMaterial(material);
      seen.after = read();
    },
    compile: () => (seen.compile = read()),
  };
  shareLooks(renderer);
  shareLooks(renderer); // once is enough: a second call wraps nothing again
  return { renderer, seen };
}

/** The fragment shader and uniforms a material's onBeforeCompile leaves of three's alpha test. */
function compiled(material) {
  const shader = { uniforms: {}, fragmentShader: 'void main() {\n#include <alphatest_fragment>\n}' };
  material.onBeforeCompile(shader, null);
  return shader;
}

describe('a shared look', () => {
  it('reads as its own side and alpha test, but as two-sided and not alpha-tested where three chooses its program', () => {
    const masked = new THREE.MeshStandardMaterial({ alphaTest: 0.5 });
    sharePrograms([masked]);
    expect([masked.side, masked.alphaTest]).toEqual([THREE.FrontSide, 0.5]);
    const { renderer, seen } = fakeRenderer(masked);
    renderer.render();
    renderer.compile();
    expect(seen.render).toEqual({ side: THREE.DoubleSide, alphaTest: 0 });
    expect(seen.compile).toEqual({ side: THREE.DoubleSide, alphaTest: 0 });
    // Its culling is its own: three sets the GL state from the material's own side.
    expect(seen.state).toEqual({ side: THREE.FrontSide, alphaTest: 0.5 });
    expect(seen.after).toEqual({ side: THREE.DoubleSide, alphaTest: 0 });
    // Out of the renderer, and in a copy (the GLB export's), it is itself again.
    expect([masked.side, masked.alphaTest]).toEqual([THREE.FrontSide, 0.5]);
    const copy = masked.clone();
    expect([copy.side, copy.alphaTest]).toEqual([THREE.FrontSide, 0.5]);
  });

  it('gives one-sided and two-sided materials one program key, one for the opaque and one for the masked, the alpha test a uniform', () => {
    const plain = new THREE.MeshStandardMaterial();
    const twoSided = new THREE.MeshStandardMaterial({ side: THREE.DoubleSide });
    const masked = new THREE.MeshStandardMaterial({ alphaTest: 0.5, side: THREE.DoubleSide });
    const maskedOneSide = new THREE.MeshStandardMaterial({ alphaTest: 0.3 });
    sharePrograms([plain, twoSided, masked, maskedOneSide]);
    expect(twoSided.customProgramCacheKey()).toBe(plain.customProgramCacheKey());
    expect(maskedOneSide.customProgramCacheKey()).toBe(masked.customProgramCacheKey());
    expect(masked.customProgramCacheKey()).not.toBe(plain.customProgramCacheKey());
    // The opaque program keeps three's alpha test (off: nothing is discarded, which software GL
    // pays per fragment); the masked one discards below its own threshold.
    const [p, m] = [compiled(plain), compiled(masked)];
    expect(p.fragmentShader).not.toContain('discard');
    expect(m.fragmentShader).toContain('if ( diffuseColor.a < alphaThreshold ) discard;');
    expect(m.fragmentShader).not.toContain('#include <alphatest_fragment>');
    expect(compiled(maskedOneSide).fragmentShader).toBe(m.fragmentShader);
    // The threshold follows the material's alpha test as it changes.
    expect(m.uniforms.alphaThreshold.value).toBe(0.5);
    masked.alphaTest = 0.25;
    expect(m.uniforms.alphaThreshold.value).toBe(0.25);
    // No longer alpha-tested: three makes its program again (its version moves), the opaque one.
    const version = masked.version;
    masked.alphaTest = 0;
    expect(masked.version).toBeGreaterThan(version);
    expect(masked.customProgramCacheKey()).toBe(plain.customProgramCacheKey());
  });

  it('keeps its own change to the shader and its key (0 A.D. player colour)', () => {
    const player = new THREE.MeshStandardMaterial();
    player.onBeforeCompile = (shader) => (shader.fragmentShader = `// player\n${shader.fragmentShader}`);
    player.customProgramCacheKey = () => 'player_trans';
    const plain = new THREE.MeshStandardMaterial();
    sharePrograms([player, plain]);
    expect(player.customProgramCacheKey()).toContain('player_trans');
    expect(player.customProgramCacheKey()).not.toBe(plain.customProgramCacheKey());
    const shader = compiled(player);
    expect(shader.fragmentShader).toContain('// player');
    const masked = new THREE.MeshStandardMaterial({ alphaTest: 0.5 });
    masked.onBeforeCompile = (s) => (s.fragmentShader = `// player\n${s.fragmentShader}`);
    sharePrograms([masked]);
    expect(compiled(masked).fragmentShader).toMatch(/\/\/ player[^]*alphaThreshold/);
  });

  it('leaves a translucent material its sides (three draws a two-sided one a side at a time) and other materials alone', () => {
    const glass = new THREE.MeshStandardMaterial({ transparent: true });
    const line = new THREE.LineBasicMaterial();
    sharePrograms([glass, line]);
    const { renderer, seen } = fakeRenderer(glass);
    renderer.render();
    expect(seen.render).toEqual({ side: THREE.FrontSide, alphaTest: 0 });
    expect(Object.getOwnPropertyDescriptor(line, 'side')?.get).toBeUndefined();
    expect(line.customProgramCacheKey()).toBe(line.onBeforeCompile.toString());
  });
});
