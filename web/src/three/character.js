// A Character is the three.js side of one scene character: the host mesh's skeleton, every part
// that shares it (head, body, armour), the clips of every animation bound to it (built on first
// use), attachment points and the prop characters that hang on them.
import * as THREE from 'three';
import { StillSkeleton, buildClip, buildMaterials, buildMesh, buildSkeleton, restInverses, usePlayerColor } from './build.js';
import { VertexAnimation } from './vertex-animation.js';
import { UNTEXTURED_MAP } from './textures.js';
import { bind, characterOf, fitAnimation } from '../core/scene.js';

/**
 * A character's root node. While `still` (set by a view for one draw, when nothing in it moved
 * since the last), three's per-frame matrix update leaves the whole character as it stands: in a
 * crowd of 953 characters, one playing, that update spent 9 ms of each frame on what had not moved.
 */
class CharacterRoot extends THREE.Group {
  still = false;

  updateMatrixWorld(force) {
    if (!this.still) super.updateMatrixWorld(force);
  }
}

export class Character {
  /**
   * @param {object} source a scene character (core/scene.js), or one decoded model, which becomes
   *   a character of its own
   */
  constructor(source) {
    const sc = source.parts ? source : characterOf(source);
    this.scene = sc;
    this.name = sc.name;
    this.models = sc.models;
    this.root = new CharacterRoot();
    this.root.name = sc.name;
    this.meshes = [];
    this.materials = [];
    this.bones = [];
    this.skeleton = null;
    this.vertexAnimations = [];
    this.attachments = [];
    this.clips = [];
    this.props = [];
    /** @type {THREE.AnimationMixer | null} */
    this._mixer = null;

    if (sc.skeleton) {
      const { bones, roots } = buildSkeleton(sc.skeleton);
      for (const r of roots) this.root.add(r);
      this.root.updateMatrixWorld(true);
      this.bones = bones;
      // Given to Skeleton, which would otherwise compute the same inverses itself.
      this.restInverses = new Array(bones.length);
      for (let i = 0; i < bones.length; i++) this.restInverses[i] = bones[i].matrixWorld.clone().invert();
      this.skeleton = new StillSkeleton(bones, this.restInverses);
      // Where the mixer's track bindings look first (PropertyBinding.findNode): by name, at once.
      this.root.skeleton = this.skeleton;
      const helper = sc.skeleton.helperBone ?? -1;
      if (helper >= 0 && bones[helper]) bones[helper].userData.helper = true;
      this.flat = !!sc.skeleton.flat;
    }
    for (const part of sc.parts) this._addPart(part);
    for (const clip of sc.clips) this._addClip(clip);
    for (const p of sc.props) this._addProp(p);
  }

  /** Made when first used: a character that is loaded and never played needs none. */
  get mixer() {
    return (this._mixer ??= new THREE.AnimationMixer(this.root));
  }

  get boneSourceNames() {
    return this.bones.map((b) => b.userData.sourceName);
  }

  _addPart({ model, boneMap, label }) {
    let skeleton = this.skeleton;
    if (skeleton && boneMap) {
      // A part binds with its own rest pose (it may rest slightly off its host's).
      skeleton = new StillSkeleton(
        Array.from(boneMap, (i) => this.bones[i]),
        restInverses(model.skeleton),
      );
    }
    // Scenery seen from inside (a sky dome) is drawn unlit and from both sides.
    const decoded = this.scene.enclosing ? model.materials.map((m) => ({ ...m, unlit: true, twoSided: true })) : model.materials;
    const materials = buildMaterials(decoded);
    // Which decoded material each one is: scene materials (textures, rules) find theirs by this.
    materials.forEach((m, index) => Object.assign(m.userData, { model, index }));
    if (this.scene.playerColor) for (const m of materials) usePlayerColor(m);
    this.materials.push(...materials);
    for (const [i, m] of model.meshes.entries()) {
      const object = buildMesh(m, materials, skeleton);
      // A part shown among its other levels of detail is named with its level (scene lod 'all').
      if (label) object.name = model.meshes.length > 1 ? `${label} ${i}` : label;
      object.userData.file = model.file;
      this.root.add(object);
      this.meshes.push(object);
      if (model.vertexAnimation && model.vertexAnimation.vertexCount === m.positions.length / 3) {
        // The clip's track finds the mesh by name: give it one that is safe and unique.
        object.name = `vertex_mesh_${this.meshes.length}`;
        object.frustumCulled = false; // its bounds are frame 0's; later frames may reach further
        this.vertexAnimations.push(new VertexAnimation(object, model.vertexAnimation));
      }
    }
    for (const a of model.attachments ?? []) {
      const node = new THREE.Object3D();
      node.name = `attachment_${this.attachments.length}`;
      node.userData.sourceName = a.name;
      node.position.fromArray(a.translation);
      node.quaternion.fromArray(a.rotation);
      const bone = a.bone >= 0 ? (boneMap ? boneMap[a.bone] : a.bone) : -1;
      (bone >= 0 && bone < this.bones.length ? this.bones[bone] : this.root).add(node);
      this.attachments.push({ name: a.name, bone, node });
    }
  }

  _addClip(sc) {
    const va =
      sc.kind === 'vertex' ? (this.vertexAnimations.find((v) => v.data.sequences.includes(sc.sequence)) ?? this.vertexAnimations[0]) : null;
    const built = new Map();
    this.clips.push({
      scene: sc, // the scene's clip: its decoded data (motion-bounds.js measures the room it needs)
      name: sc.name,
      fps: sc.fps,
      frameCount: sc.frames,
      loop: sc.loop,
      source: sc.file,
      kind: sc.kind,
      firstFrame: sc.firstFrame ?? 0,
      group: sc.group,
      notifies: sc.notifies ?? [],
      speed: sc.speed ?? 1,
      // A loop's period returns to the first frame; a single pass ends on the last frame.
      duration: sc.frames / (sc.fps || 30),
      lastTime: Math.max(0, sc.frames - 1) / (sc.fps || 30),
      // Built when first selected, not for every sequence up front; one per loop mode.
      build: (loop = sc.loop) => {
        if (!built.has(loop)) built.set(loop, va ? va.clipFor(sc.sequence, loop) : buildClip(sc.clip, this.bones, sc.map, loop));
        return built.get(loop);
      },
      select: (loop = sc.loop) => va?.setSequence(sc.sequence, loop),
    });
  }

  _addProp({ point, character }) {
    const at = this.attachments.find((a) => a.name === point);
    const prop = new Character(character);
    (at?.node ?? this.root).add(prop.root);
    const idle = prop.clips.find((c) => c.name === 'idle') ?? prop.clips[0];
    if (idle) prop.mixer.clipAction(idle.build(true)).play();
    this.props.push(prop);
  }

  /**
   * Binds an animation file to this character on its own (loaders, tests; the viewer binds
   * through the scene). Returns the match report, with `error` when refused.
   */
  addAnimation(anim) {
    const fit = fitAnimation(this.scene, anim);
    const report = {
      file: anim.file,
      target: this.name,
      total: fit.total,
      matched: fit.matched,
      byIndex: !!fit.byIndex,
      missing: fit.missing ?? [],
      extra: fit.extra ?? [],
    };
    if (!fit.ok) return { ...report, error: `animation ${anim.file}: ${fit.reason}` };
    for (const clip of bind(this.scene, anim, fit)) this._addClip(clip);
    return report;
  }

  /** Advances this character's and its props' animations; true if a clip was under way (it may have moved bones). */
  advance(dt) {
    let moved = (this._mixer?.stats.actions.inUse ?? 0) > 0; // before the step: a clip that ends in it still posed
    this.mixer.update(dt);
    for (const p of this.props) moved = p.advance(dt) || moved;
    return moved;
  }

  /** Per-frame work that the mixer cannot do: vertex-animated meshes. */
  update() {
    for (const va of this.vertexAnimations) va.update();
    for (const p of this.props) p.update();
  }

  /** Every character in this one's tree (itself and its props, depth first). */
  *tree() {
    yield this;
    for (const p of this.props) yield* p.tree();
  }

  dispose() {
    for (const p of this.props) p.dispose();
    this._mixer?.stopAllAction();
    this._mixer?.uncacheRoot(this.root);
    this.root.removeFromParent();
    for (const m of this.meshes) m.geometry.dispose();
    for (const m of this.materials) {
      for (const k of ['map', 'alphaMap']) if (m[k] !== UNTEXTURED_MAP) m[k]?.dispose?.(); // the white texel is every untextured material's
      m.dispose();
    }
    this.skeleton?.dispose();
  }
}
