// Inspection panels: bone tree with the selected bone's local transform at the current frame,
// material/texture assignment, and stats. File text goes through textContent only.
import * as THREE from 'three';
import { el } from './panels.js';

export class Inspector {
  constructor(app, viewer, { tree, detail, materials, stats }) {
    Object.assign(this, { app, viewer, tree, detail, materials, stats });
    this.selected = null;
    this._euler = new THREE.Euler();
  }

  refresh() {
    this._renderTree();
    this._renderMaterials();
  }

  _renderTree() {
    this.tree.replaceChildren();
    const add = (bone, parentList) => {
      const button = el('button', { type: 'button', 'aria-pressed': String(bone === this.selected) }, bone.userData.sourceName);
      button.addEventListener('click', () => { this.selected = bone; this._renderTree(); this.update(); });
      const li = el('li', {}, button);
      const kids = bone.children.filter((c) => c.isBone);
      if (kids.length) {
        const ul = el('ul');
        for (const k of kids) add(k, ul);
        li.append(ul);
      }
      parentList.append(li);
    };
    for (const c of this.app.characters) {
      if (!c.bones.length) continue;
      const li = el('li', {}, el('strong', {}, c.name));
      const ul = el('ul');
      for (const b of c.bones.filter((b) => !b.parent?.isBone)) add(b, ul);
      li.append(ul);
      this.tree.append(li);
    }
  }

  /** Live: the selected bone's local transform at the current frame. */
  update() {
    const b = this.selected;
    if (!b || !b.parent) { this.detail.textContent = this.app.characters.some((c) => c.bones.length) ? 'Select a bone' : ''; return; }
    const r = this._euler.setFromQuaternion(b.quaternion);
    const f = (v) => v.toFixed(3).padStart(9);
    const d = (v) => THREE.MathUtils.radToDeg(v).toFixed(1).padStart(7);
    this.detail.textContent = `${b.userData.sourceName}\n` +
      `position ${f(b.position.x)}${f(b.position.y)}${f(b.position.z)}\n` +
      `rotation ${d(r.x)}°${d(r.y)}°${d(r.z)}° (XYZ)\n` +
      `quat     ${[b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w].map((v) => v.toFixed(4)).join(' ')}\n` +
      `scale    ${f(b.scale.x)}${f(b.scale.y)}${f(b.scale.z)}`;
  }

  _renderMaterials() {
    this.materials.replaceChildren();
    const keys = this.app.textures.map((t) => [t.id, t]);
    for (const c of this.app.characters) {
      for (const m of c.materials) {
        const select = el('select', { 'aria-label': `Texture for ${m.name}` },
          el('option', { value: '' }, m.map ? `(${m.map.name})` : '(none)'),
          ...keys.map(([k, t]) => el('option', { value: k }, t.name)));
        select.addEventListener('change', () => select.value && this.app.assignTextureByHand(m, select.value));
        this.materials.append(el('label', {}, `${m.name || 'material'} `, select));
      }
    }
    if (!this.materials.children.length) this.materials.append(el('div', { class: 'muted' }, 'No materials'));
    else if (!keys.length) this.materials.append(el('div', { class: 'muted' }, 'Drop textures (PNG, JPEG, BMP, TGA, DDS, PCX) to assign them here'));
  }

  renderStats() {
    const { app, viewer } = this;
    let vertices = 0, triangles = 0, bones = 0;
    for (const c of app.characters) {
      bones += c.bones.length;
      for (const m of c.meshes) {
        vertices += m.geometry.attributes.position.count;
        triangles += (m.geometry.index ? m.geometry.index.count : m.geometry.attributes.position.count) / 3;
      }
    }
    const rows = [
      ['vertices', vertices], ['triangles', triangles], ['bones', bones],
      ['clips', app.allClips.length], ['draw calls', viewer.renderer.info.render.calls],
      ['decode + build', `${app.lastDecodeMs.toFixed(0)} ms`], ['frame rate', `${viewer.fps.toFixed(0)} fps`],
    ];
    this.stats.replaceChildren(...rows.map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, String(v)))));
  }
}
