// Overlays for the page's viewer and the element. The skeleton's follow the bones every frame, as
// three.js's SkeletonHelper does, but only while shown: hidden (the default) they would still
// walk every bone of every character each frame, in a scene of a thousand characters. The axes
// at attachment sockets are every socket of the view in one LineSegments, one draw call: a
// LineSegments a socket made 650 of the 2,324 draw calls of a 200-mod drop, about 15 µs of the
// page's frame each. They are moved to their sockets at each draw, after three has updated the
// world matrices (the scene's onBeforeRender) and before it uploads the geometry.
import * as THREE from 'three';

/** Lines from each bone to its parent (THREE.SkeletonHelper), idle while hidden. */
export class BonesHelper extends THREE.SkeletonHelper {
  updateMatrixWorld(force) {
    if (this.visible) super.updateMatrixWorld(force);
    else THREE.Object3D.prototype.updateMatrixWorld.call(this, force);
  }
}

const joint = new THREE.Vector3();

/** A point at each bone (flat skeletons, 0 A.D.: no parent-child lines to draw), idle while hidden. */
export class JointsHelper extends THREE.Points {
  constructor(bones) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(bones.length * 3), 3));
    super(
      geometry,
      new THREE.PointsMaterial({
        color: 0x44ddff,
        size: 7,
        sizeAttenuation: false,
        depthTest: false,
        depthWrite: false,
        transparent: true,
      }),
    );
    this.bones = bones;
    this.renderOrder = 999;
    this.frustumCulled = false;
  }

  updateMatrixWorld(force) {
    if (this.visible) {
      const p = this.geometry.attributes.position;
      for (let i = 0; i < this.bones.length; i++) {
        joint.setFromMatrixPosition(this.bones[i].matrixWorld);
        p.setXYZ(i, joint.x, joint.y, joint.z);
      }
      p.needsUpdate = true;
    }
    super.updateMatrixWorld(force);
  }

  dispose() {
    this.geometry.dispose();
    this.material.dispose();
  }
}

/** A socket's axes as three's AxesHelper draws them: x red, y green, z blue, from the socket out. */
const AXES = new THREE.AxesHelper(1);
const AXIS_COLORS = AXES.geometry.getAttribute('color').array;
const AXIS_ENDS = [new THREE.Vector3(1, 0, 0), new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1)];
/** Floats a socket takes in each array: three segments of two points. */
const PER_SOCKET = 18;

export class SocketMarkers {
  /** @param {THREE.Object3D} scene what a socket must be drawn in (every node above it visible) */
  constructor(scene) {
    this.scene = scene;
    /** @type {Set<THREE.Object3D>} socket nodes */
    this.sockets = new Set();
    /** Axis length in world units (the view sets it from the scene's size). */
    this.size = 1;
    /** Whether markers show at all (the view's "Attachment points"). */
    this.visible = true;
    this.object = new THREE.LineSegments(new THREE.BufferGeometry(), AXES.material);
    this.object.name = 'attachment markers';
    this.object.visible = false; // until a socket is drawn
    // Its points are world positions: never culled as one box, never moved by a parent.
    this.object.frustumCulled = false;
    this.object.matrixAutoUpdate = false;
    this._capacity = 0;
    this._origin = new THREE.Vector3();
    this._end = new THREE.Vector3();
  }

  add(node) {
    this.sockets.add(node);
  }

  delete(node) {
    this.sockets.delete(node);
  }

  /** Moves the segments to the sockets drawn now; run after the world matrices are updated. */
  update() {
    if (!this.visible || !this.sockets.size) {
      this.object.visible = false;
      return;
    }
    this.object.visible = true;
    if (this._capacity < this.sockets.size) this._grow(this.sockets.size);
    const geometry = this.object.geometry;
    const positions = geometry.getAttribute('position');
    const out = positions.array;
    let at = 0;
    for (const node of this.sockets) {
      if (!drawnIn(node, this.scene)) continue;
      const m = node.matrixWorld;
      const origin = this._origin.setFromMatrixPosition(m);
      for (const axis of AXIS_ENDS) {
        const end = this._end.copy(axis).multiplyScalar(this.size).applyMatrix4(m);
        origin.toArray(out, at);
        end.toArray(out, at + 3);
        at += 6;
      }
    }
    geometry.setDrawRange(0, at / 3);
    positions.clearUpdateRanges();
    positions.addUpdateRange(0, at);
    positions.needsUpdate = true;
  }

  /** Room for `count` sockets (doubling): new arrays, the colours written once. */
  _grow(count) {
    this._capacity = Math.max(count, this._capacity * 2, 16);
    const colors = new Float32Array(this._capacity * PER_SOCKET);
    for (let i = 0; i < this._capacity; i++) colors.set(AXIS_COLORS, i * PER_SOCKET);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute(
      'position',
      new THREE.BufferAttribute(new Float32Array(this._capacity * PER_SOCKET), 3).setUsage(THREE.DynamicDrawUsage),
    );
    geometry.setAttribute('color', new THREE.BufferAttribute(colors, 3));
    this.object.geometry.dispose();
    this.object.geometry = geometry;
  }

  dispose() {
    this.sockets.clear();
    this.object.geometry.dispose();
    this.object.geometry = new THREE.BufferGeometry();
    this._capacity = 0;
  }
}

/** Whether `object` and every node above it are visible, up to `scene`. */
function drawnIn(object, scene) {
  for (let o = object; o; o = o.parent) {
    if (!o.visible) return false;
    if (o === scene) return true;
  }
  return false;
}
