// Skeleton overlays for the page's viewer and the element. Both follow the bones every frame, as
// three.js's SkeletonHelper does, but only while shown: hidden (the default) they would still
// walk every bone of every character each frame, in a scene of a thousand characters.
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
