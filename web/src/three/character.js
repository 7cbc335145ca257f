// A Character is what the viewer shows for one mesh file (plus parts that share its skeleton):
// the three.js objects, the clips of every animation bound to it (built on first use), and the
// report of how each animation's bones matched.
import * as THREE from 'three';
import { buildClip, buildMaterials, buildMesh, buildSkeleton } from './build.js';
import { VertexAnimation } from './vertex-animation.js';
import { matchBonesByCount, matchBonesByName } from '../core/match.js';

const key = (n) => String(n).replace(/[\s\0]+$/, '').toLowerCase();

export class Character {
  constructor(model) {
    this.name = model.file ?? model.name;
    this.models = [model];
    this.root = new THREE.Group();
    this.root.name = this.name;
    this.meshes = [];
    this.materials = [];
    this.bones = [];
    this.skeleton = null;
    this.vertexAnimations = [];
    this.attachments = [];
    this.clips = [];
    this.matchReports = [];
    this.mixer = new THREE.AnimationMixer(this.root);

    if (model.skeleton && model.meshes.some((m) => m.skinIndex)) {
      const { bones, roots } = buildSkeleton(model.skeleton);
      for (const r of roots) this.root.add(r);
      this.root.updateMatrixWorld(true);
      this.bones = bones;
      this.restInverses = bones.map((b) => b.matrixWorld.clone().invert());
      this.skeleton = new THREE.Skeleton(bones, this.restInverses);
    }
    this._addMeshes(model, this.skeleton);
    this._addAttachments(model);
    this._addOwnClips(model);
  }

  get boneSourceNames() { return this.bones.map((b) => b.userData.sourceName); }

  _addMeshes(model, skeleton) {
    const materials = buildMaterials(model.materials);
    this.materials.push(...materials);
    for (const m of model.meshes) {
      const object = buildMesh(m, materials, skeleton);
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
  }

  _addAttachments(model) {
    for (const a of model.attachments ?? []) {
      const node = new THREE.Object3D();
      node.name = `attachment_${this.attachments.length}`;
      node.userData.sourceName = a.name;
      node.position.fromArray(a.translation);
      node.quaternion.fromArray(a.rotation);
      const parent = a.bone >= 0 && a.bone < this.bones.length ? this.bones[a.bone] : this.root;
      parent.add(node);
      this.attachments.push({ name: a.name, bone: a.bone, node });
    }
  }

  _addOwnClips(model) {
    for (const va of this.vertexAnimations) {
      for (const seq of va.data.sequences) {
        this.clips.push({
          name: seq.name, group: seq.group, fps: seq.rate, frameCount: seq.frameCount,
          duration: seq.frameCount / (seq.rate || 30), loop: true, source: model.file, kind: 'vertex',
          firstFrame: seq.startFrame,
          build: () => va.clipFor(seq),
          select: (loop) => va.setSequence(seq, loop),
        });
      }
    }
    for (const clip of model.clips ?? []) this._pushSkeletalClip(clip, model.file, null);
  }

  _pushSkeletalClip(clip, source, map) {
    let built = null;
    this.clips.push({
      name: clip.name, fps: clip.fps, frameCount: clip.frameCount, duration: clip.duration, loop: clip.loop,
      source, kind: 'skeletal', firstFrame: 0,
      // Clips are built when first selected, not for every sequence up front.
      build: () => (built ??= buildClip(clip, this.bones, map)),
      select: () => {},
    });
  }

  /** True when every bone of `model` exists here by name: a body part of this character. */
  canShare(model) {
    if (!this.skeleton || !model.skeleton || model.format !== this.models[0].format) return false;
    // 0 A.D. bones have no names (they are bone_<i>): two models never share by name.
    if (model.format === 'pmd') return false;
    const mine = new Set(this.boneSourceNames.map(key));
    return model.skeleton.names.every((n) => mine.has(key(n)));
  }

  /** Adds another mesh (head, armour…) that plays on this character's skeleton. */
  addPart(model) {
    const byName = new Map();
    this.bones.forEach((b, i) => { if (!byName.has(key(b.userData.sourceName))) byName.set(key(b.userData.sourceName), i); });
    const order = model.skeleton.names.map((n) => byName.get(key(n)));
    const skeleton = new THREE.Skeleton(order.map((i) => this.bones[i]), order.map((i) => this.restInverses[i]));
    this.models.push(model);
    this._addMeshes(model, skeleton);
  }

  /**
   * Binds an animation file's clips to this character. Unreal PSA by bone name, 0 A.D. PSSA by
   * bone count. Returns the match report (with `error` when refused).
   */
  addAnimation(anim) {
    let match;
    if (anim.format === 'pssa') {
      const own = this.models[0];
      const count = own.counts?.bones ?? this.bones.length;
      match = matchBonesByCount(count, anim.counts?.bones ?? 0, anim.file, own.file);
    } else {
      match = matchBonesByName(this.boneSourceNames, anim.skeleton?.names ?? []);
      if (match.matched === 0) match.error = `animation ${anim.file} shares no bone names with ${this.name}`;
    }
    const report = { file: anim.file, target: this.name, total: anim.skeleton?.names.length ?? anim.counts?.bones ?? 0, ...match };
    this.matchReports.push(report);
    if (match.error) return report;
    for (const clip of anim.clips) this._pushSkeletalClip(clip, anim.file, match.map);
    return report;
  }

  /** Per-frame work that the mixer cannot do: vertex-animated meshes. */
  update() {
    for (const va of this.vertexAnimations) va.update();
  }

  dispose() {
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.root);
    this.root.removeFromParent();
    for (const m of this.meshes) m.geometry.dispose();
    for (const m of this.materials) {
      for (const k of ['map', 'alphaMap']) m[k]?.dispose?.();
      m.dispose();
    }
    this.skeleton?.dispose();
  }
}
