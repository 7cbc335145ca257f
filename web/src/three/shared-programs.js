// Materials made to share three's shader programs where the picture is the same, for the page's
// viewer and <rigscope-viewer> alike. Software GL (no KHR_parallel_shader_compile) links each
// program and prepares its first draw one at a time, so every program a folder needs beyond one
// per kind of material is time the folder is not in place (issues #31, #41).
import * as THREE from 'three';
import { drawUntexturedWhite } from './textures.js';
import { blendBothSidesAtOnce } from './build.js';

/** The materials a root's meshes draw with. */
export function materialsOf(root) {
  const out = [];
  root.traverse((o) => {
    if (o.material) out.push(...(Array.isArray(o.material) ? o.material : [o.material]));
  });
  return out;
}

/**
 * Readies materials before their programs are compiled: an untextured one draws the white texel
 * (its textured kind's program), a two-sided translucent or modulated one both sides in one pass
 * (one program, not one a side), and an opaque one, one-sided or two, alpha-tested or not, draws
 * with the one program of its look (shareLook).
 * @param {import('three').Material[]} materials
 */
export function sharePrograms(materials) {
  for (const m of materials) {
    drawUntexturedWhite(m);
    blendBothSidesAtOnce(m);
    shareLook(m);
  }
}

/**
 * Above 0 while a renderer given to shareLooks draws or compiles, outside its setting of the GL
 * state for a material: then a material with a shared look reads to three as it chooses a program.
 */
let choosing = 0;

/** Renderers whose draws and compiles choose shared programs. */
const sharing = new WeakSet();

/**
 * Makes `renderer` choose the shared program of each material with a shared look (shareLook): its
 * draws and compiles read such a material as two-sided and not alpha-tested, except where three
 * sets the GL state for it (state.setMaterial: the faces it culls).
 * @param {import('three').WebGLRenderer} renderer
 */
export function shareLooks(renderer) {
  if (sharing.has(renderer)) return;
  sharing.add(renderer);
  for (const name of /** @type {const} */ (['render', 'compile'])) {
    const own = renderer[name].bind(renderer);
    renderer[name] = (...args) => {
      choosing++;
      try {
        return own(...args);
      } finally {
        choosing--;
      }
    };
  }
  const { state } = renderer;
  const setMaterial = state.setMaterial;
  state.setMaterial = (...args) => {
    const was = choosing;
    choosing = 0;
    try {
      setMaterial(...args);
    } finally {
      choosing = was;
    }
  };
}

const ALPHA_TEST = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(THREE.Material.prototype, 'alphaTest'));
const OWN_KEY = THREE.Material.prototype.customProgramCacheKey;
/** Materials given a shared look. */
const looks = new WeakSet();

/**
 * Gives an opaque lit or unlit material the program it shares with every material of its look,
 * one-sided or two, alpha-tested or not. three makes a program per side and per alpha test
 * (defines), yet where a one-sided material's back faces are culled its front faces draw alike
 * through the two-sided program, and an alpha test is a threshold: its own uniform, 0 (nothing is
 * discarded) where the material is not alpha-tested. Everything else (the GLB export's copy, the
 * panels) reads the material's own side and alpha test; only a renderer given to shareLooks reads
 * it as two-sided and not alpha-tested, and still culls its back faces.
 * @param {import('three').Material} material
 */
function shareLook(material) {
  if (looks.has(material) || !(material.isMeshStandardMaterial || material.isMeshBasicMaterial)) return;
  looks.add(material);
  let side = material.side;
  Object.defineProperty(material, 'side', {
    configurable: true,
    enumerable: true,
    // A translucent or transmissive one keeps its sides: three draws it a side at a time, setting
    // the side it draws (one program each).
    get() {
      return choosing && side === THREE.FrontSide && !this.transparent && !(this.transmission > 0) ? THREE.DoubleSide : side;
    },
    set(value) {
      side = value;
    },
  });
  Object.defineProperty(material, 'alphaTest', {
    configurable: true,
    enumerable: true,
    get() {
      return choosing ? 0 : ALPHA_TEST.get?.call(this);
    },
    set(value) {
      ALPHA_TEST.set?.call(this, value);
    },
  });
  const threshold = {
    get value() {
      return ALPHA_TEST.get?.call(material);
    },
  };
  const ownCompile = material.onBeforeCompile;
  const ownKey = material.customProgramCacheKey === OWN_KEY ? () => '' : material.customProgramCacheKey.bind(material);
  const masked = () => (ALPHA_TEST.get?.call(material) ?? 0) > 0;
  material.onBeforeCompile = (shader, renderer) => {
    ownCompile.call(material, shader, renderer);
    if (!masked()) return;
    shader.uniforms.alphaThreshold = threshold;
    shader.fragmentShader = `uniform float alphaThreshold;\n${shader.fragmentShader.replace(
      '#include <alphatest_fragment>',
      'if ( diffuseColor.a < alphaThreshold ) discard;',
    )}`;
  };
  material.customProgramCacheKey = () => `shared look${masked() ? ' masked' : ''} ${ownKey()}`;
}
