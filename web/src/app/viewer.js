// The 3D view: renderer, camera, controls, lights, helpers and the render loop. It knows
// Characters, not formats.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { CSS2DObject, CSS2DRenderer } from 'three/addons/renderers/CSS2DRenderer.js';
import { VertexNormalsHelper } from 'three/addons/helpers/VertexNormalsHelper.js';

/** Points at bone world positions, refreshed every frame like THREE.SkeletonHelper's lines. */
class JointsHelper extends THREE.Points {
  constructor(bones) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(bones.length * 3), 3));
    super(geometry, new THREE.PointsMaterial({ color: 0x44ddff, size: 7, sizeAttenuation: false, depthTest: false, depthWrite: false, transparent: true }));
    this.bones = bones;
    this.renderOrder = 999;
    this.frustumCulled = false;
  }

  updateMatrixWorld(force) {
    const p = this.geometry.attributes.position, v = new THREE.Vector3();
    this.bones.forEach((b, i) => p.setXYZ(i, ...v.setFromMatrixPosition(b.matrixWorld).toArray()));
    p.needsUpdate = true;
    super.updateMatrixWorld(force);
  }

  dispose() {
    this.geometry.dispose();
    this.material.dispose();
  }
}

export class Viewer {
  constructor(container, { background = 0x23262e } = {}) {
    this.container = container;
    this.background = new THREE.Color(background);
    this.renderer = new THREE.WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.renderer.outputColorSpace = THREE.SRGBColorSpace;
    container.prepend(this.renderer.domElement);
    this.labels = new CSS2DRenderer();
    this.labels.domElement.style.cssText = 'position:absolute;inset:0;pointer-events:none';
    container.append(this.labels.domElement);

    this.scene = new THREE.Scene();
    this.scene.background = this.background;
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
    this.camera.position.set(2, 1.5, 3);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;

    this.hemi = new THREE.HemisphereLight(0xffffff, 0x444455, 1.6);
    this.scene.add(this.hemi);
    // A light that follows the camera keeps every side of the model readable.
    this.keyLight = new THREE.DirectionalLight(0xffffff, 1.8);
    this.keyLight.position.set(1, 2, 3);
    this.camera.add(this.keyLight);
    this.scene.add(this.camera);

    this.grid = new THREE.GridHelper(10, 20, 0x555b66, 0x353a44);
    this.scene.add(this.grid);
    // A ground disc under the model, sized and placed with the grid.
    this.ground = new THREE.Mesh(new THREE.CircleGeometry(5, 64).rotateX(-Math.PI / 2),
      new THREE.MeshStandardMaterial({ color: 0x3a3f4a, roughness: 1, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }));
    this.ground.visible = false;
    this.scene.add(this.ground);

    this.characters = [];
    this.skeletonHelpers = [];
    this.showSkeleton = false;
    this.showAttachments = true;
    this.wireframe = false;
    this.timer = new THREE.Timer();
    this.timeScale = 1;
    this.onTick = null;
    this.bindPose = false;
    this.showBoneNames = false;
    this.normalHelpers = [];
    this.fps = 0;

    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
    this.renderer.setAnimationLoop(() => this.tick());
  }

  resize() {
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h, false);
    this.labels.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  }

  add(character) {
    this.characters.push(character);
    this.scene.add(character.root);
    const helper = new THREE.SkeletonHelper(character.root);
    helper.visible = this.showSkeleton;
    helper.userData.character = character;
    if (character.bones.length) {
      this.scene.add(helper);
      this.skeletonHelpers.push(helper);
    }
    // Flat skeletons (0 A.D.: every bone a child of the root) have no parent-child lines to draw:
    // show a point at each joint instead.
    if (character.bones.length && character.flat) {
      const joints = new JointsHelper(character.bones.filter((b) => !b.userData.helper));
      joints.visible = this.showSkeleton;
      joints.userData.character = character;
      this.scene.add(joints);
      this.skeletonHelpers.push(joints);
    }
    for (const a of [...character.tree()].flatMap((c) => c.attachments)) {
      if (!character.labelsOnly) {
        const marker = new THREE.AxesHelper(1);
        marker.userData.isAttachmentMarker = true;
        a.node.add(marker);
      }
      const el = document.createElement('span');
      el.className = 'label3d';
      el.textContent = a.name; // file text: never HTML
      const label = new CSS2DObject(el);
      label.userData.isAttachmentMarker = true;
      a.node.add(label);
    }
    this.setWireframe(this.wireframe);
    this.setAttachmentsVisible(this.showAttachments);
  }

  /**
   * Compiles the shaders of what was just added off the main thread where the browser can
   * (KHR_parallel_shader_compile); the render loop holds meanwhile, so no frame waits for it.
   */
  async prepare() {
    this.hold = true;
    try {
      await this.renderer.compileAsync(this.scene, this.camera);
    } finally {
      this.hold = false;
    }
  }

  remove(character) {
    this.setNormalsVisible(false);
    this.characters = this.characters.filter((c) => c !== character);
    for (const h of this.skeletonHelpers.filter((x) => x.userData.character === character)) {
      h.removeFromParent();
      h.dispose();
    }
    this.skeletonHelpers = this.skeletonHelpers.filter((x) => x.userData.character !== character);
    character.root.traverse((o) => { if (o.isCSS2DObject) o.element.remove(); });
    character.dispose();
  }

  clear() {
    for (const c of [...this.characters]) this.remove(c);
  }

  /** Lighting presets: studio (sky + key light), flat (even, no shading cues), rim (dark, back-lit). */
  setLighting(preset) {
    const p = { studio: [1.6, 1.8, [1, 2, 3]], flat: [3.0, 0, [0, 0, 1]], rim: [0.4, 3.0, [-2, 1, -3]] }[preset] ?? [1.6, 1.8, [1, 2, 3]];
    this.hemi.intensity = p[0];
    this.keyLight.intensity = p[1];
    this.keyLight.position.set(...p[2]);
  }

  setBindPose(on) {
    this.bindPose = on;
    for (const c of this.characters) {
      if (on) c.skeleton?.pose();
      else c.mixer.update(0);
    }
  }

  setBoneNamesVisible(on) {
    this.showBoneNames = on;
    for (const c of this.characters) {
      for (const b of c.bones) {
        let label = b.children.find((o) => o.isCSS2DObject && o.userData.isBoneLabel);
        if (!label && on) {
          const span = document.createElement('span');
          span.className = 'label3d bone';
          span.textContent = b.userData.sourceName; // file text: never HTML
          label = new CSS2DObject(span);
          label.userData.isBoneLabel = true;
          b.add(label);
        }
        if (label) label.visible = on;
      }
    }
  }

  setNormalsVisible(on) {
    for (const h of this.normalHelpers) { h.removeFromParent(); h.dispose(); }
    this.normalHelpers = [];
    if (!on) return;
    for (const c of this.characters) {
      for (const m of c.meshes) {
        const size = m.geometry.boundingSphere?.radius ?? 1;
        const h = new VertexNormalsHelper(m, size * 0.03, 0x55ddff);
        this.scene.add(h);
        this.normalHelpers.push(h);
      }
    }
  }

  setBackground(color) {
    this.background.set(color);
  }

  setSkeletonVisible(on) {
    this.showSkeleton = on;
    for (const h of this.skeletonHelpers) h.visible = on;
  }

  setWireframe(on) {
    this.wireframe = on;
    for (const c of this.characters) for (const m of c.materials) m.wireframe = on;
  }

  setAttachmentsVisible(on) {
    this.showAttachments = on;
    for (const c of this.characters) {
      c.root.traverse((o) => { if (o.userData.isAttachmentMarker) o.visible = on; });
    }
  }

  /** Frames everything loaded: the camera looks at the bounding box from the front-right. */
  frameAll() {
    const box = new THREE.Box3();
    for (const c of this.characters) {
      c.root.updateMatrixWorld(true);
      // Exact skinned bounds cost a bone transform per vertex: only for meshes of modest size.
      const vertices = c.meshes.reduce((n, m) => n + m.geometry.attributes.position.count, 0);
      box.expandByObject(c.root, vertices < 60000);
    }
    if (box.isEmpty()) return;
    const size = box.getSize(new THREE.Vector3()).length() || 1;
    const center = box.getCenter(new THREE.Vector3());
    this.camera.near = size / 200;
    this.camera.far = size * 100;
    this.camera.updateProjectionMatrix();
    // Distance at which the bounding sphere fits the narrower of the two fields of view.
    const vfov = THREE.MathUtils.degToRad(this.camera.fov);
    const hfov = 2 * Math.atan(Math.tan(vfov / 2) * this.camera.aspect);
    const distance = (size / 2 / Math.sin(Math.min(vfov, hfov) / 2)) * 1.05;
    this.camera.position.copy(center).add(new THREE.Vector3(0.45, 0.3, 1).normalize().multiplyScalar(distance));
    this.controls.target.copy(center);
    this.controls.update();
    const s = 10 ** Math.round(Math.log10(size));
    this.grid.scale.setScalar(s / 5);
    this.grid.position.set(center.x, box.min.y, center.z);
    this.ground.scale.copy(this.grid.scale);
    this.ground.position.copy(this.grid.position);
    for (const c of this.characters) {
      for (const a of c.attachments) a.node.children.forEach((m) => { if (m.type === 'AxesHelper') m.scale.setScalar(size * 0.04); });
    }
  }

  tick() {
    if (this.hold) return;
    this.timer.update();
    const dt = Math.min(this.timer.getDelta(), 0.1);
    if (dt > 0) this.fps = this.fps * 0.95 + (1 / dt) * 0.05;
    for (const c of this.characters) {
      if (this.bindPose) c.skeleton?.pose();
      else c.advance(dt * this.timeScale);
    }
    this.onTick?.(dt);
    this.render();
  }

  render() {
    for (const c of this.characters) c.update();
    for (const h of this.normalHelpers) h.update();
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
    this.labels.render(this.scene, this.camera);
  }

  /** Renders and counts the pixels that differ from the background (tests, and "is anything drawn"). */
  countForegroundPixels() {
    this.render();
    const gl = this.renderer.getContext();
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const bg = this.background.clone().convertLinearToSRGB();
    const br = Math.round(bg.r * 255), bgG = Math.round(bg.g * 255), bb = Math.round(bg.b * 255);
    let count = 0, sx = 0, sy = 0;
    for (let i = 0; i < w * h; i++) {
      const o = i * 4;
      if (Math.abs(px[o] - br) + Math.abs(px[o + 1] - bgG) + Math.abs(px[o + 2] - bb) > 24) {
        count++;
        sx += i % w;
        sy += Math.floor(i / w);
      }
    }
    return { count, total: w * h, cx: count ? sx / count : 0, cy: count ? sy / count : 0, pixels: px, w, h };
  }
}
