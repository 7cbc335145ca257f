// Everything a user can hand over becomes a list of FileEntry: dropped files and folders, the
// file button, zip archives (expanded), and URLs.
import { unzip } from 'fflate';
import { entryFromBlob, entryFromBytes, extension } from '../core/files.js';

/** Reads a drop, recursing into folders. */
export async function entriesFromDataTransfer(dt) {
  const roots = [...dt.items].filter((i) => i.kind === 'file').map((i) => i.webkitGetAsEntry?.() ?? null);
  if (roots.length === 0 || roots.some((r) => r === null)) return expandZips([...dt.files].map((f) => entryFromBlob(f)));
  const out = [];
  await Promise.all(roots.map((r) => walk(r, out)));
  return expandZips(out);
}

export async function walk(fsEntry, out) {
  if (fsEntry.isFile) {
    const file = await new Promise((resolve, reject) => fsEntry.file(resolve, reject));
    out.push(entryFromBlob(file, fsEntry.fullPath.replace(/^\//, '')));
    return;
  }
  const reader = fsEntry.createReader();
  // Chromium returns at most 100 entries per readEntries() call: keep reading until it
  // returns an empty batch (the three.js editor and Online3DViewer stop after the first).
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    await Promise.all(batch.map((e) => walk(e, out)));
  }
}

export function entriesFromFileList(files) {
  return expandZips([...files].map((f) => entryFromBlob(f, f.webkitRelativePath || f.name)));
}

/** Replaces every .zip entry by its members (folders inside the zip keep their paths). */
export async function expandZips(entries) {
  const out = [];
  for (const e of entries) {
    if (extension(e.name) !== 'zip') { out.push(e); continue; }
    const bytes = new Uint8Array(await e.read());
    const files = await new Promise((resolve, reject) => unzip(bytes, (err, data) => (err ? reject(new Error(`${e.name}: ${err.message}`)) : resolve(data))));
    for (const [path, data] of Object.entries(files)) {
      if (path.endsWith('/') || data.length === 0 && path.endsWith('/')) continue;
      if (/(^|\/)__MACOSX\//.test(path)) continue;
      out.push(entryFromBytes(`${e.name}/${path}`, data));
    }
  }
  return out;
}

/** Fetches URLs; a failure says whether the other site refused cross-origin access. */
export async function entriesFromUrls(urls, onProgress) {
  const out = [];
  for (const url of urls) {
    let response;
    try {
      response = await fetch(url, { mode: 'cors' });
    } catch {
      throw new Error(`Could not fetch ${url}: the server did not allow this page to read it (CORS), or it is unreachable`);
    }
    if (!response.ok) throw new Error(`Could not fetch ${url}: HTTP ${response.status}`);
    const total = Number(response.headers.get('content-length')) || 0;
    const reader = response.body.getReader();
    const chunks = [];
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      onProgress?.({ url, got, total });
    }
    const bytes = new Uint8Array(got);
    let o = 0;
    for (const c of chunks) { bytes.set(c, o); o += c.length; }
    const name = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || 'download');
    out.push(entryFromBytes(name, bytes));
  }
  return expandZips(out);
}
