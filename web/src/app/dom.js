// One way to make DOM from code: `el(tag, props, ...children)`. Strings become text nodes (file
// names shown with their invisible and direction-changing characters written out), never markup.
import { displayName } from '../core/files.js';

export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c instanceof Node ? c : displayName(c));
  return e;
}
