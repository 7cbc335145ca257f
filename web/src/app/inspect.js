// Inspection panels: the bone tree (collapsible, searchable; the selected bone marked in 3D, its
// local transform at the current frame, its name shown before any other label),
// materials with the rule that chose each texture and its maps by role (manual assignment, a
// texture viewer button), and stats. File text goes through textContent only.
import * as THREE from 'three';
import { CSS2DObject } from 'three/addons/renderers/CSS2DRenderer.js';
import { displayName } from '../core/files.js';
import { LABEL_RANK } from '../three/labels.js';
import { el } from './dom.js';
import { textureButton } from './texture-viewer.js';
import { fillList } from './panels/slices.js';

const MARKER_COLOR = 0xffc21a;

/**
 * The selected bone's marker: a sphere and axes drawn over the model, and the bone's name. Sized
 * to the character (a fraction of its bounds), whatever the bone's own world scale.
 */
class BoneMarker {
  /** @param {import('../three/labels.js').Labels} labels the view's labels, which place the name first while it is shown */
  constructor(labels) {
    this.labels = labels;
    const onTop = { depthTest: false, depthWrite: false, transparent: true };
    this.group = new THREE.Group();
    this.group.name = 'rigscope-bone-marker';
    this.sphere = new THREE.Mesh(
      new THREE.SphereGeometry(1, 16, 12),
      new THREE.MeshBasicMaterial({ color: MARKER_COLOR, opacity: 0.9, ...onTop }),
    );
    this.axes = new THREE.AxesHelper(3.5);
    Object.assign(this.axes.material, onTop);
    for (const o of [this.sphere, this.axes]) {
      o.renderOrder = 1001;
      o.frustumCulled = false;
      this.group.add(o);
    }
    const span = document.createElement('span');
    span.className = 'label3d bone selected';
    this.label = new CSS2DObject(span);
    // Above and to the right of the sphere, so the name never hides the joint it names.
    this.label.center.set(-0.08, 1.15);
    this.group.add(this.label);
    this._box = new THREE.Box3();
    this._size = new THREE.Vector3();
    this._scale = new THREE.Vector3();
  }

  attach(bone, character) {
    this.detach();
    character.root.updateMatrixWorld(true);
    const radius = this._box.setFromObject(character.root).getSize(this._size).length() / 2 || 1;
    bone.getWorldScale(this._scale);
    const boneScale = (Math.abs(this._scale.x) + Math.abs(this._scale.y) + Math.abs(this._scale.z)) / 3 || 1;
    this.group.scale.setScalar((radius * 0.025) / boneScale);
    this.label.element.textContent = displayName(bone.userData.sourceName);
    bone.add(this.group);
    this.labels.track(this.label, LABEL_RANK.selected);
  }

  detach() {
    this.group.removeFromParent();
    this.labels.untrack(this.label);
  }
}

/** Whole levels of a skeleton open at first while at most this many rows show; deeper ones on demand. */
const FIRST_ROWS = 80;

export class Inspector {
  constructor(app, viewer, { tree, detail, materials, stats }) {
    Object.assign(this, { app, viewer, tree, detail, materials, stats });
    this.selected = null;
    // The tree in pre-order: { bone, character, parent, depth, children, name, open, li, button, list }.
    // Rows (li, button) and child lists exist only once shown: a long skeleton costs what is open.
    this.nodes = [];
    this.nodeOfBone = new Map();
    this.characterItems = []; // { li, nodes: [first, end) }
    this._euler = new THREE.Euler();
    this.marker = new BoneMarker(viewer.labels);
    this._buildToolbar();
    this.tree.addEventListener('click', (e) => this._onTreeClick(e));
    this._listenToMaterials();
    // The selected bone's own name label would say what its marker says, beside it: left out
    // (asked at each draw, since bone names are made when first shown). The selected character's
    // names go before the others'.
    const scene = viewer.scene;
    const before = scene.onBeforeRender;
    scene.onBeforeRender = (renderer, s, camera, target) => {
      before.call(scene, renderer, s, camera, target);
      if (target) return;
      viewer.labels.leftOut = this.selected?.children.find((o) => o.userData.isBoneLabel) ?? null;
      viewer.labels.focus = app.selected?.root ?? null;
    };
  }

  _buildToolbar() {
    this.search = el('input', { type: 'search', class: 'bone-search', placeholder: 'Search bones', 'aria-label': 'Search bones' });
    this.matches = el('span', { class: 'muted bone-count', 'aria-live': 'polite' });
    const all = (open) => () => {
      for (const n of this.nodes) this._setExpanded(n, open);
    };
    this.search.addEventListener('input', () => this._filter());
    this.tree.before(
      el(
        'div',
        { class: 'bone-tools' },
        this.search,
        el('button', { type: 'button', onclick: all(true), title: 'Expand every bone' }, 'Expand all'),
        el('button', { type: 'button', onclick: all(false), title: 'Collapse every bone' }, 'Collapse all'),
        this.matches,
      ),
    );
  }

  /** After a load, a clip change or a texture assignment: the tree is rebuilt only when its skeletons changed. */
  refresh() {
    const characters = this.app.characters.flatMap((c) => [...c.tree()]).filter((c) => c.bones.length);
    const same = characters.length === this.treeCharacters?.length && characters.every((c, i) => c === this.treeCharacters[i]);
    if (!same) {
      this.treeCharacters = characters;
      this._renderTree(characters);
    }
    this._renderMaterials();
  }

  /** The nodes of every skeleton in one pass, then rows for the levels open at first. */
  _renderTree(characters) {
    this.nodes = [];
    this.nodeOfBone = new Map();
    this.characterItems = [];
    const perDepth = [];
    const add = (bone, character, parent, depth) => {
      const index = this.nodes.length;
      const node = {
        bone,
        character,
        parent,
        depth,
        children: [],
        name: String(bone.userData.sourceName).toLowerCase(),
        open: false,
        li: null,
        button: null,
        list: null,
      };
      this.nodes.push(node);
      this.nodeOfBone.set(bone, node);
      perDepth[depth] = (perDepth[depth] ?? 0) + 1;
      for (const k of bone.children) if (k.isBone) node.children.push(add(k, character, index, depth + 1));
      return index;
    };
    const roots = [];
    for (const c of characters) {
      const first = this.nodes.length;
      const own = [];
      for (const b of c.bones) if (!b.parent?.isBone) own.push(add(b, c, -1, 0));
      const item = { li: null, first, end: this.nodes.length };
      this.characterItems.push(item);
      roots.push({ c, own, item });
    }
    let levels = 1;
    for (let rows = perDepth[0] ?? 0; levels < perDepth.length && rows + perDepth[levels] <= FIRST_ROWS; levels++) rows += perDepth[levels];
    for (const n of this.nodes) n.open = n.depth < levels - 1 && n.children.length > 0;
    if (this.selected && !this.nodeOfBone.has(this.selected)) this.select(null);
    // A character's rows are made in slices (a drop of a thousand skeletons); the search and the
    // selection see the rows made so far, and all of them once the list is complete.
    fillList(
      this.tree,
      roots,
      ({ c, own, item }) => {
        const list = document.createElement('ul');
        for (const i of own) list.append(this._row(i));
        item.li = el('li', { class: 'tree-character' }, el('strong', {}, c.name), list);
        return item.li;
      },
      { done: () => this._filter() },
    );
  }

  /** A node's row, with the rows of its children when it is open. */
  _row(index) {
    const node = this.nodes[index];
    const li = document.createElement('li');
    li.dataset.node = String(index);
    if (node.children.length) {
      const twisty = document.createElement('button');
      twisty.type = 'button';
      twisty.className = 'twisty';
      li.append(twisty);
    } else li.append(Object.assign(document.createElement('span'), { className: 'twisty' }));
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'bone';
    button.textContent = displayName(node.bone.userData.sourceName);
    button.setAttribute('aria-pressed', String(node.bone === this.selected));
    li.append(button);
    Object.assign(node, { li, button });
    this._showOpen(node);
    if (node.open) this._list(node);
    return li;
  }

  /** The list of a node's children, made the first time it is needed. */
  _list(node) {
    if (node.list || !node.li) return;
    node.list = document.createElement('ul');
    for (const i of node.children) node.list.append(this._row(i));
    node.li.append(node.list);
  }

  _showOpen(node) {
    if (!node.children.length) return;
    node.li.classList.toggle('collapsed', !node.open);
    node.li.firstChild.setAttribute('aria-expanded', String(node.open));
    node.li.firstChild.setAttribute('aria-label', node.open ? 'Collapse' : 'Expand');
  }

  _onTreeClick(e) {
    const button = e.target.closest('button');
    const li = button?.closest('li[data-node]');
    if (!li || !this.tree.contains(li)) return;
    const node = this.nodes[Number(li.dataset.node)];
    if (button.classList.contains('twisty')) this._setExpanded(node, !node.open);
    else this.select(node.bone === this.selected ? null : node.bone);
  }

  /** Opens or closes a node; in pre-order over all nodes, "expand all" makes each list once. */
  _setExpanded(node, open) {
    if (!node.children.length) return;
    node.open = open;
    if (!node.li) return;
    if (open) this._list(node);
    this._showOpen(node);
  }

  /** Shows the bones whose name holds the search text, with their ancestors (making their rows). */
  _filter() {
    const q = this.search.value.trim().toLowerCase();
    this.tree.classList.toggle('searching', q !== '');
    const { nodes } = this;
    const shown = new Uint8Array(nodes.length);
    let matches = 0;
    // Pre-order: every descendant comes after its ancestor, so walking backwards reaches children first.
    for (let i = nodes.length - 1; i >= 0; i--) {
      if (q === '' || nodes[i].name.includes(q)) {
        shown[i] = 2;
        if (q) matches++;
      }
      if (shown[i] && nodes[i].parent >= 0) shown[nodes[i].parent] ||= 1;
    }
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (q && shown[i] && n.parent >= 0) this._list(nodes[n.parent]);
      if (!n.li) continue;
      n.li.hidden = !shown[i];
      n.li.classList.toggle('match', q !== '' && shown[i] === 2);
    }
    for (const { li, first, end } of this.characterItems) if (li) li.hidden = q !== '' && !shown.subarray(first, end).includes(2);
    this.matches.textContent = q ? `${matches} of ${nodes.length}` : nodes.length ? `${nodes.length} bones` : '';
  }

  /** Selects a bone (or none): marked in the tree (its ancestors opened) and in 3D. */
  select(bone) {
    const prev = this.selected && this.nodeOfBone.get(this.selected);
    prev?.button?.setAttribute('aria-pressed', 'false');
    this.selected = bone;
    const node = bone && this.nodeOfBone.get(bone);
    if (node) {
      const path = [];
      for (let p = node.parent; p >= 0; p = this.nodes[p].parent) path.push(this.nodes[p]);
      for (const a of path.reverse()) this._setExpanded(a, true);
      node.button?.setAttribute('aria-pressed', 'true'); // a row not made yet is marked when made
      this.marker.attach(bone, node.character);
    } else this.marker.detach();
    this.update();
    this.viewer.requestRender?.();
  }

  /** Live: the selected bone's local transform at the current frame. */
  update() {
    const b = this.selected;
    if (!b || !b.parent) {
      this.detail.textContent = this.app.characters.some((c) => c.bones.length) ? 'Select a bone' : '';
      return;
    }
    const r = this._euler.setFromQuaternion(b.quaternion);
    const f = (v) => v.toFixed(3).padStart(9);
    const d = (v) => THREE.MathUtils.radToDeg(v).toFixed(1).padStart(7);
    this.detail.textContent =
      `${displayName(b.userData.sourceName)}\n` +
      `position ${f(b.position.x)}${f(b.position.y)}${f(b.position.z)}\n` +
      `rotation ${d(r.x)}°${d(r.y)}°${d(r.z)}° (XYZ)\n` +
      `quat     ${[b.quaternion.x, b.quaternion.y, b.quaternion.z, b.quaternion.w].map((v) => v.toFixed(4)).join(' ')}\n` +
      `scale    ${f(b.scale.x)}${f(b.scale.y)}${f(b.scale.z)}`;
  }

  _renderMaterials() {
    const { app } = this;
    this._entryIndex = new WeakMap(); // made again each time: a new assembly may change the entries
    this._materialOfSelect = new Map(); // made again each time: rows of a cleared drop lead to nothing
    const owners = app.characters
      .filter((c) => !c.textureBoard)
      .flatMap((c) => [...c.tree()])
      .filter((c) => c.materials.length);
    const boards = app.scene?.boards ?? [];
    const items = [];
    for (const character of owners) {
      if (owners.length > 1) items.push(character.name);
      for (const m of character.materials) items.push([character, m]);
    }
    for (const board of boards) {
      items.push('Textures without a model');
      for (const record of board.textures) items.push(record);
    }
    const texture = (record) =>
      el('div', { class: 'material-texture' }, textureButton(record, app.decoder), el('span', { title: record.path }, record.name));
    // Rows in slices: a drop of a thousand characters has thousands of materials.
    fillList(
      this.materials,
      items,
      (item) => (typeof item === 'string' ? el('h2', {}, item) : Array.isArray(item) ? this._materialRow(...item) : texture(item)),
      {
        done: (box) => {
          if (!owners.length && !boards.length) box.append(el('div', { class: 'muted' }, 'No materials'));
          else if (owners.length && !app.textures.length)
            box.append(el('div', { class: 'muted' }, 'Drop textures (PNG, JPEG, BMP, TGA, DDS, PCX) to assign them here'));
        },
      },
    );
  }

  /** A material's entry in its scene (the texture chosen and by which rule), found through an index per scene. */
  _entryOf(character, m) {
    const entries = character.scene?.materials;
    if (!entries) return undefined;
    let index = this._entryIndex.get(entries);
    if (!index) {
      index = new Map();
      for (const e of entries) {
        if (!index.has(e.model)) index.set(e.model, new Map());
        if (!index.get(e.model).has(e.index)) index.get(e.model).set(e.index, e);
      }
      this._entryIndex.set(entries, index);
    }
    return index.get(m.userData.model)?.get(m.userData.index);
  }

  /** A material: its texture and the rule that chose it, its other maps by role, and manual assignment. */
  _materialRow(character, m) {
    const { app } = this;
    const entry = this._entryOf(character, m);
    const row = el('div', { class: 'material' }, el('div', { class: 'material-name' }, m.name || entry?.name || 'material'));
    const line = (record, role) =>
      el(
        'div',
        { class: 'material-texture' },
        textureButton(record, app.decoder),
        role ? el('span', { class: 'role' }, role) : null,
        el('span', { title: record.path }, record.name),
        !role && entry.rule ? el('span', { class: 'rule' }, ` — ${entry.rule}`) : null,
      );
    if (entry?.texture) row.append(line(entry.texture));
    else row.append(el('div', { class: 'muted' }, 'no texture'));
    for (const [role, record] of Object.entries(entry?.maps ?? {})) if (role !== 'base' && record) row.append(line(record, role));
    const records = app.textures;
    if (records.length) {
      const option = (t) => el('option', { value: t.id, title: t.path }, t.name);
      const placeholder = el('option', { value: '' }, 'Assign by hand…');
      const manual = entry?.rule === 'manual' ? entry.texture : null;
      const select = el(
        'select',
        { 'aria-label': `Texture for ${displayName(m.name || 'material')}` },
        placeholder,
        manual ? option(manual) : null,
      );
      if (manual) select.value = manual.id;
      this._materialOfSelect.set(select, m);
      row.append(select);
    }
    return row;
  }

  /**
   * The material rows' selects, through one listener each on the list. No row holds a closure over
   * its material or the texture records: Chromium may keep removed rows alive (the closed panel's
   * last layout still lists them), and a closure would keep a cleared drop's pixels with them.
   */
  _listenToMaterials() {
    const filled = new WeakSet();
    const selectOf = (e) => (e.target instanceof HTMLSelectElement && this._materialOfSelect?.has(e.target) ? e.target : null);
    // The texture list is filled when the select is first focused (clicked or tabbed to): a
    // folder of a thousand materials and a thousand textures would otherwise build a million
    // options up front, and freeze the page doing it.
    this.materials.addEventListener('focusin', (e) => {
      const select = selectOf(e);
      if (!select || filled.has(select)) return;
      filled.add(select);
      const value = select.value;
      const option = (t) => el('option', { value: t.id, title: t.path }, t.name);
      select.replaceChildren(select.options[0], ...this.app.textures.map(option));
      select.value = value;
    });
    this.materials.addEventListener('change', (e) => {
      const select = selectOf(e);
      if (select?.value) this.app.assignTextureByHand(this._materialOfSelect.get(select), select.value);
    });
  }

  renderStats() {
    const { app, viewer } = this;
    let vertices = 0,
      triangles = 0,
      bones = 0;
    for (const c of app.characters) {
      bones += c.bones.length;
      for (const m of c.meshes) {
        vertices += m.geometry.attributes.position.count;
        triangles += (m.geometry.index ? m.geometry.index.count : m.geometry.attributes.position.count) / 3;
      }
    }
    const rows = [
      ['vertices', vertices],
      ['triangles', triangles],
      ['bones', bones],
      ['clips', app.allClips.length],
      ['draw calls', viewer.renderer.info.render.calls],
      ['decode + build', `${app.lastDecodeMs.toFixed(0)} ms`],
      ['frame rate', `${viewer.fps.toFixed(0)} fps`],
    ];
    this.stats.replaceChildren(...rows.map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, String(v)))));
  }
}
