// 0 A.D. actor XML (art/actors/**.xml): which mesh, textures, props and named animations make one
// unit. Spec: shared/specs/zeroad-pmd-psa.md §6. No three.js here; the App assembles the result.
//
// The engine picks one variant per <group> (by selection, else at random by frequency) and merges
// them in order, later groups overriding earlier ones. A viewer shows one fixed look: the first
// variant with a non-zero frequency of each group. <qualitylevels> (A25+) wraps several actors; the
// highest quality one is read.
import { baseName } from '../core/files.js';

/** A parsed element: { tag, attrs, children, text }. Names and values are file text: never HTML. */
function fromDom(e) {
  const attrs = {};
  for (const a of e.attributes) attrs[a.name] = a.value;
  const children = [...e.children].map(fromDom);
  return { tag: e.tagName, attrs, children, text: e.textContent ?? '' };
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e] ?? m),
  );

/** A tiny XML reader for Node (no DOMParser): elements, attributes, text; comments, PIs, CDATA skipped. */
function parseFallback(text) {
  const root = { tag: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  const re =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<!DOCTYPE[^>]*>|<\/([^\s>]+)\s*>|<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
  for (const m of text.matchAll(re)) {
    const top = stack[stack.length - 1];
    if (m[1] !== undefined) {
      for (const s of stack) s.text += m[1];
      continue;
    }
    if (m[2]) {
      if (top.tag !== m[2] || stack.length === 1) throw new Error(`XML: </${m[2]}> does not close <${top.tag}>`);
      stack.pop();
    } else if (m[3]) {
      const attrs = {};
      for (const a of m[4].matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs[a[1]] = unescape(a[2] ?? a[3]);
      const node = { tag: m[3], attrs, children: [], text: '' };
      top.children.push(node);
      if (!m[5]) stack.push(node);
    } else if (m[6] !== undefined) {
      const t = unescape(m[6]);
      for (const s of stack) s.text += t;
    }
  }
  if (stack.length > 1) throw new Error(`XML: <${stack[stack.length - 1].tag}> is never closed`);
  if (root.children.length !== 1) throw new Error('XML: expected one root element');
  return root.children[0];
}

/** Parses XML text to { tag, attrs, children, text }, with DOMParser when there is one. */
export function parseXml(text) {
  if (typeof DOMParser === 'undefined') return parseFallback(text);
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  const error = doc.querySelector('parsererror');
  if (error) throw new Error(`XML: ${error.textContent.split('\n')[0]}`);
  return fromDom(doc.documentElement);
}

/**
 * How actors name files and how dropped files are named meet here: no folder, lower case, no
 * extension and no 0 A.D. cache suffix (`biped/walk.dae`, `walk.psa`, `walk.dae.cached.psa` → `walk`).
 */
export function fileKey(path) {
  let n = baseName(String(path)).toLowerCase();
  n = n.replace(/\.(?:cached|[0-9a-f]{16})\.[a-z0-9]+$/, '');
  for (;;) {
    const m = n.match(/^(.*)\.(dae|pmd|psa|xml|xmb|png|dds|tga)$/);
    if (!m) break;
    n = m[1];
  }
  return n;
}

const kids = (node, tag) => node.children.filter((c) => c.tag === tag);
const QUALITY = { low: 100, medium: 150, high: 200 };
const quality = (a) => (a.quality === undefined ? 255 : (QUALITY[a.quality] ?? (Number(a.quality) || 0)));

/**
 * Reads an actor.
 * @param {string} text the actor XML
 * @param {(path: string) => string|null} loadXml text of another XML file (variants, quality-level
 *   actors) by the path the actor names, or null when it was not given
 * @returns {null | { mesh: string, material: string, textures: {name: string, file: string}[],
 *   props: {attachpoint: string, actor: string}[], animations: {name: string, file: string, speed: number, id: string}[],
 *   missing: string[] }} null when the XML is not an actor
 */
export function readActor(text, loadXml = () => null) {
  const out = { mesh: '', material: '', textures: [], props: [], animations: [], missing: [] };
  let root = parseXml(text);
  for (let depth = 0; root.tag === 'qualitylevels' && depth < 4; depth++) {
    const levels = kids(root, 'actor');
    if (!levels.length) throw new Error('<qualitylevels> holds no <actor>');
    const best = levels.reduce((a, b) => (quality(b.attrs) > quality(a.attrs) ? b : a));
    if (best.attrs.file) {
      const t = loadXml(best.attrs.file);
      if (t == null) {
        out.missing.push(`quality level actor ${best.attrs.file}`);
        return out;
      }
      root = parseXml(t);
    } else if (best.attrs.inline !== undefined) {
      root = kids(root, 'inline')[0] ?? best;
    } else {
      root = best;
    }
  }
  if (root.tag !== 'actor' && root.tag !== 'inline') return null;

  const merge = (variant, depth = 0) => {
    if (variant.attrs.file && depth < 4) {
      const t = loadXml(`variants/${variant.attrs.file}`) ?? loadXml(variant.attrs.file);
      if (t == null) out.missing.push(`variant ${variant.attrs.file}`);
      else merge(parseXml(t), depth + 1);
    }
    for (const c of variant.children) {
      if (c.tag === 'mesh') out.mesh = c.text.trim();
      else if (c.tag === 'textures') {
        for (const t of kids(c, 'texture')) {
          const name = t.attrs.name ?? 'baseTex';
          out.textures = out.textures.filter((x) => x.name !== name);
          if (t.attrs.file) out.textures.push({ name, file: t.attrs.file });
        }
      } else if (c.tag === 'props') {
        for (const p of kids(c, 'prop')) {
          const attachpoint = p.attrs.attachpoint ?? '';
          out.props = out.props.filter((x) => x.attachpoint !== attachpoint);
          if (p.attrs.actor) out.props.push({ attachpoint, actor: p.attrs.actor }); // empty = removed
        }
      } else if (c.tag === 'animations') {
        for (const a of kids(c, 'animation')) {
          if (!a.attrs.file) continue;
          const speed = Number(a.attrs.speed ?? 100);
          out.animations.push({
            name: (a.attrs.name ?? 'idle').toLowerCase(),
            file: a.attrs.file,
            speed: speed > 0 ? speed : 100,
            id: a.attrs.id ?? '',
          });
        }
      }
    }
  };
  for (const c of root.children) {
    if (c.tag === 'material') out.material = c.text.trim();
    else if (c.tag === 'group') {
      const variants = kids(c, 'variant');
      const pick = variants.find((v) => Number(v.attrs.frequency ?? 1) > 0) ?? variants[0];
      if (pick) merge(pick);
    }
  }
  return out;
}

/** The engine's player_trans materials use the base texture's alpha as a player-colour mask. */
export const usesPlayerColor = (actor) => /player_trans/i.test(actor.material);
