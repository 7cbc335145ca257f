// @ts-check
// three.js loaders, shaped like DRACOLoader and FBXLoader: load / loadAsync / parse / parseAsync,
// setDecoderPath and setWorkerLimit, a decoder pool per loader that dispose() ends without
// touching any other loader, and LoadingManager bracketing that closes after the decode.
//
// Every loader runs the one pipeline of the viewer: the file set is decoded through the family
// registry (core/fileset.js) and assembled into a scene (core/scene.js); a mesh loader resolves to
// a Group with `.animations`, an animation loader to AnimationClip[]. What a loader adds is only
// which family and which output it accepts: formats are never told apart here.
import { FileLoader, Group, Loader, LoaderUtils, Skeleton } from 'three';
import { createDecoderHost } from '#decoder-host';
import { fitAnimation } from '../core/scene.js';
import { isLod } from '../core/lod.js';
import { baseName, entryFromBytes } from '../core/files.js';
import { BUNDLE_EXTENSION, expandBundles, isBundle } from '../core/bundle.js';
import { describeRecord } from '../core/report.js';
import { entriesFromUrls } from '../core/input.js';
import { decodeFiles, FAMILIES, familyById, readsInParts } from '../families/index.js';
import { Character } from './character.js';
import { buildClip, uniqueNodeNames } from './build.js';
import { textureOfRecord } from './textures.js';
import { sceneObjects } from './scene-objects.js';

/** @typedef {import('three').AnimationClip} AnimationClip */
/** @typedef {import('three').Object3D} Object3D */
/** @typedef {import('three').Bone} Bone */
/** @typedef {ArrayBuffer | ArrayBufferView | string} FileData */
/** @typedef {FileData | Record<string, FileData> | Map<string, FileData>} LoaderData */

/** The decoded animation each clip came from, for bindClips(); AnimationClip.userData must stay JSON. */
const sourceOfClip = new WeakMap();

/** Bytes of one file as given to parse(): buffers, views or text (scripts, sidecars). */
function bytesOf(value) {
  if (typeof value === 'string') return new TextEncoder().encode(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError('file data must be an ArrayBuffer, a typed array or a string');
}

/** The file name of a URL or path, without query or fragment; a malformed %-escape stays as written. */
function fileNameOf(url) {
  const last = baseName(String(url ?? '').split(/[?#]/)[0]);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * An entry of bytes given to parse(). A host that copies its input into the decoder and never
 * transfers (detaches) it, as Node's does, reads the caller's bytes where they lie: the copies
 * made for a transfer (read() and a head read copy by default) were a second and third copy of
 * the file per parse, 2 ms and 5 MB of garbage on a 5 MB mesh. Its head read is the whole file
 * (the file set reads only the head of it, and keeps it as the file's first read).
 */
function entryOf(name, bytes, inPlace) {
  const entry = entryFromBytes(name, bytes);
  const { buffer } = bytes;
  if (!inPlace || !(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength) return entry;
  entry.read = async () => buffer;
  entry.readHead = () => Promise.resolve(buffer);
  return entry;
}

/**
 * File entries from parse()'s data: one file named by `path`, or several as name → data. The
 * first is the file the loader was asked for; the others are its companions.
 */
function entriesOf(data, path, fallbackName, inPlace) {
  if (data === null || data === undefined) throw new TypeError('no file data given');
  const named =
    data instanceof Map
      ? [...data]
      : typeof data === 'object' && !(data instanceof ArrayBuffer) && !ArrayBuffer.isView(data)
        ? Object.entries(data)
        : null;
  if (named) {
    if (!named.length) throw new TypeError('no files given');
    // A file load() read in parts (a package behind a host that answers ranges) comes as its entry.
    return named.map(([name, value]) => (value?.ranged ? value : entryOf(name, bytesOf(value), inPlace)));
  }
  const bytes = bytesOf(data);
  // Bytes without a name are a bundle when they carry its signature (core/bundle.js).
  const name = fileNameOf(path) || (isBundle(bytes) ? `file.${BUNDLE_EXTENSION}` : fallbackName);
  return [entryOf(name, bytes, inPlace)];
}

/** Names of the files a family needs beside this one (UE1's _a.3d beside its _d.3d). */
const companionsOf = (name) => FAMILIES.flatMap((f) => f.companions?.(name) ?? []);

/** Bones of a target: a loader's Group, any Object3D with a SkinnedMesh or bones, a Skeleton, or Bone[]. */
function bonesOf(target) {
  if (Array.isArray(target)) return target;
  if (target instanceof Skeleton) return target.bones;
  const character = target?.userData?.character;
  if (character instanceof Character) return character.bones;
  /** @type {any} */
  let skinned = null;
  /** @type {Bone[]} */
  const bones = [];
  target?.traverse?.((o) => {
    if (o.isSkinnedMesh && !skinned) skinned = o;
    else if (o.isBone) bones.push(o);
  });
  return skinned ? skinned.skeleton.bones : bones;
}

/** A scene character for fitAnimation() from a target: a loader's own, or one made of bone names. */
function fitTargetOf(target, bones) {
  const character = target?.userData?.character;
  if (character instanceof Character) return character.scene;
  const names = bones.map((b) => b.userData?.sourceName ?? b.name);
  const name = target?.name || 'the target';
  return { host: { name, skeleton: { names }, counts: { bones: names.length } } };
}

/**
 * Builds the clips of a decoded animation for a target's bones: by name (Unreal) or by index and
 * count (0 A.D.), the rule the animation carries. Throws when the animation does not fit.
 */
function clipsFor(anim, target) {
  const bones = bonesOf(target);
  const fit = fitAnimation(fitTargetOf(target, bones), anim);
  if (!fit.ok) throw new Error(`${anim.file}: ${fit.reason}`);
  return anim.clips.map((clip, index) => {
    const built = buildClip(clip, bones, /** @type {any} */ (fit.map), clip.loop);
    sourceOfClip.set(built, { anim, index });
    return built;
  });
}

/** Clips on the animation's own bone names (index-bound files: bone_0, bone_1, … as meshes name theirs). */
function ownClips(anim) {
  const count = anim.skeleton?.names.length ?? anim.counts?.bones ?? 0;
  const names = uniqueNodeNames(anim.skeleton?.names ?? new Array(count).fill(''), 'bone');
  return clipsFor(
    anim,
    names.map((name) => ({ name, userData: {} })),
  );
}

/**
 * Re-binds clips an animation loader made to another target (a loader's Group, a SkinnedMesh, a
 * Skeleton or Bone[]): `mixer.clipAction(bindClips(clips, group)[0])`.
 * @param {AnimationClip[]} clips
 * @param {Object3D | import('three').Skeleton | Bone[]} target
 * @returns {AnimationClip[]}
 */
export function bindClips(clips, target) {
  const anims = new Map();
  for (const c of clips) {
    const source = sourceOfClip.get(c);
    if (!source) throw new Error(`clip ${c.name} was not made by a Rigscope animation loader`);
    if (!anims.has(source.anim)) anims.set(source.anim, clipsFor(source.anim, target));
  }
  return clips.map((c) => {
    const { anim, index } = /** @type {{anim: any, index: number}} */ (sourceOfClip.get(c));
    return anims.get(anim)[index];
  });
}

/** Hidden from JSON (Object3D.toJSON, clone) but reachable: the Character behind a loaded Group. */
function keep(userData, key, value) {
  Object.defineProperty(userData, key, { value, enumerable: false, configurable: true, writable: true });
}

class RigscopeLoader extends Loader {
  /** The registry family this loader reads (families/index.js). */
  /** The loader's name in messages: a minifier renames classes (a bundled PSKLoader's `name` was "ke"). */
  static loaderName = 'RigscopeLoader';
  static family = '';
  /** 'mesh' resolves to a Group, 'animation' to AnimationClip[]. */
  static output = 'mesh';
  /**
   * Whether a model another family decoded is this loader's kind too (a .psk its script placed,
   * decoded by the UE1 family), or null for none.
   * @type {((model: { format?: string, container?: object }) => boolean) | null}
   */
  static fits = null;

  /** @param {import('three').LoadingManager} [manager] */
  constructor(manager) {
    super(manager);
    this.decoderPath = '';
    this.workerLimit = 2;
    this._workerLimitSet = false;
    /** @type {{ call(op: string, args: any[]): Promise<any>, dispose?(): void, transfersInput?: boolean } | null} */
    this.decoder = null;
    this._pool = null;
  }

  /**
   * Folder holding the decoder `worker.js` and `decoders.wasm`, for bundlers that do not bundle
   * workers. In Node: another `decoders.wasm`, or a folder holding one.
   */
  setDecoderPath(path) {
    this.decoderPath = path;
    this._pool?.setDecoderPath?.(path);
    return this;
  }

  /** Decoder workers this loader starts at most (Node: worker_threads; unset, Node decodes in its own thread). */
  setWorkerLimit(limit) {
    this.workerLimit = limit;
    this._workerLimitSet = true;
    this._pool?.setWorkerLimit?.(limit);
    return this;
  }

  /** Decodes with another host (a DecoderPool shared by several loaders, the Node host): not disposed by this loader. */
  setDecoder(decoder) {
    this.decoder = decoder;
    return this;
  }

  /** Ends this loader's own decoder workers; other loaders' decodes go on. */
  dispose() {
    this._pool?.dispose();
    this._pool = null;
    return this;
  }

  _decoder() {
    if (this.decoder) return this.decoder;
    // Node decodes synchronously on one shared instance until a worker limit is set (node-pool.js).
    this._pool ??= createDecoderHost({ workerLimit: this._workerLimitSet ? this.workerLimit : undefined, decoderPath: this.decoderPath });
    return this._pool;
  }

  /**
   * Fetches a file (or several: an array of URLs) and what its family needs beside it, then parses.
   * @param {string | string[]} url
   * @param {(result: any) => void} onLoad
   * @param {(event: ProgressEvent) => void} [onProgress]
   * @param {(err: unknown) => void} [onError]
   */
  load(url, onLoad, onProgress, onError) {
    const urls = Array.isArray(url) ? [...url] : [url];
    for (const name of companionsOf(urls[0])) {
      if (!urls.some((u) => baseName(u).toLowerCase() === baseName(name).toLowerCase())) urls.push(name);
    }
    const item = this.manager.resolveURL(this.path + urls[0]);
    this.manager.itemStart(item);
    const fail = (err) => {
      if (onError) onError(err);
      else console.error(err);
      this.manager.itemError(item);
      this.manager.itemEnd(item);
    };
    const fetchOne = (u) => (readsInParts(fileNameOf(u)) ? this._fetchInParts(u) : this._fetch(u, onProgress));
    Promise.all(urls.map(fetchOne)).then((buffers) => {
      const files = new Map(urls.map((u, i) => [fileNameOf(u), buffers[i]]));
      this.parse(
        files,
        LoaderUtils.extractUrlBase(item),
        (result) => {
          onLoad(result);
          this.manager.itemEnd(item);
        },
        fail,
      );
    }, fail);
  }

  /**
   * A file a family reads in parts (a UE1 package: its tables, then the objects parsed), as an
   * entry of core/input.js, where the host answers ranges; else its bytes.
   */
  _fetchInParts(url) {
    const resolved = this.manager.resolveURL(this.path + url);
    this.manager.itemStart(resolved);
    const limits = { readsInParts, requestHeaders: this.requestHeader, withCredentials: this.withCredentials };
    return entriesFromUrls([resolved], undefined, limits)
      .then(([entry]) => (entry.ranged ? entry : entry.read()))
      .catch((err) => {
        this.manager.itemError(resolved);
        throw err;
      })
      .finally(() => this.manager.itemEnd(resolved));
  }

  /** One file's bytes through three's FileLoader (cache, manager), or fetch() where that cannot run. */
  _fetch(url, onProgress) {
    if (typeof ProgressEvent !== 'undefined') {
      return new Promise((resolve, reject) => {
        const loader = new FileLoader(this.manager);
        loader.setPath(this.path);
        loader.setResponseType('arraybuffer');
        loader.setRequestHeader(this.requestHeader);
        loader.setWithCredentials(this.withCredentials);
        loader.load(url, resolve, onProgress, reject);
      });
    }
    // Node has fetch() but no ProgressEvent, which FileLoader makes for every chunk it reads.
    const resolved = this.manager.resolveURL(this.path + url);
    this.manager.itemStart(resolved);
    const request = {
      headers: this.requestHeader,
      credentials: /** @type {RequestCredentials} */ (this.withCredentials ? 'include' : 'same-origin'),
    };
    return fetch(resolved, request)
      .then(async (response) => {
        if (!response.ok) throw new Error(`fetch for "${response.url}" responded with ${response.status}: ${response.statusText}`);
        return response.arrayBuffer();
      })
      .catch((err) => {
        this.manager.itemError(resolved);
        throw err;
      })
      .finally(() => this.manager.itemEnd(resolved));
  }

  /**
   * Parses files already in memory. `data` is one file's bytes (named by `path`, a file name or
   * URL) or several files as name → bytes (a mesh with its animations, textures and scripts).
   * The legacy parse(data, onLoad, onError) form is accepted too.
   * @param {LoaderData} data
   * @param {string | ((result: any) => void)} path
   * @param {(result: any) => void} [onLoad]
   * @param {(err: unknown) => void} [onError]
   */
  parse(data, path, onLoad, onError) {
    if (typeof path === 'function') [path, onLoad, onError] = ['', path, /** @type {any} */ (onLoad)];
    this.parseAsync(data, path).then(onLoad, (err) => (onError ? onError(err) : console.error(err)));
  }

  /**
   * @param {LoaderData} data
   * @param {string} [path]
   * @returns {Promise<any>}
   */
  async parseAsync(data, path = '') {
    const ctor = /** @type {typeof RigscopeLoader} */ (this.constructor);
    // Taken before anything is awaited: a dispose() right after this call ends this decode.
    const decoder = this._decoder();
    const given = entriesOf(data, path, `file.${ctor.family}`, decoder.transfersInput === false);
    // A .rigscope bundle (core/bundle.js) stands for the files inside it, so loading one gives
    // what loading its files gives; the file asked for is then the bundle's files together.
    const entries = await expandBundles(given);
    const bundle = entries[0]?.bundle?.path === given[0].path ? given[0].path : null;
    const asked = bundle ? entries.filter((e) => e.bundle?.path === bundle).map((e) => e.path) : [entries[0].path];
    const primary = bundle ?? entries[0].path;
    /** @type {any} */
    const decoded = await decodeFiles(entries, decoder, this._decodeOptions());
    const mine = (list) =>
      bundle
        ? (list.find((m) => m.family === ctor.family && m.files.some((f) => asked.includes(f))) ??
          list.find((m) => m.files.some((f) => asked.includes(f))))
        : list.find((m) => m.files.includes(primary));
    const found =
      bundle && ctor.output === 'animation'
        ? (mine(decoded.animations) ?? mine(decoded.models))
        : (mine(decoded.models) ?? mine(decoded.animations));
    const family = familyById(ctor.family);
    const output = found && (decoded.models.includes(found) ? 'mesh' : 'animation');
    const texturesOnly = !found && ctor.output === 'mesh' && decoded.textures.some((t) => asked.includes(t.path) && (t.decoded || t.load));
    if (texturesOnly) return this._result(decoded, null, decoder);
    if (!found || !(found.family === ctor.family || ctor.fits?.(found)) || output !== ctor.output) {
      const problem = decoded.records.find((r) => r.files.some((f) => asked.includes(f)) && r.kind !== 'paired');
      const wanted = `${ctor.output === 'mesh' ? 'a mesh' : 'an animation'} (${family?.label})`;
      const reason = found
        ? `${primary} holds ${output === 'mesh' ? 'a mesh' : 'an animation'} (${familyById(found.family)?.label ?? found.family}), not ${wanted}`
        : problem
          ? describeRecord(problem)
          : `${primary} is not ${bundle ? `a bundle holding ${wanted}` : wanted}`;
      throw new Error(`${ctor.loaderName}: ${reason}`);
    }
    return this._result(decoded, found, decoder);
  }

  /** Options of decodeFiles() a loader adds (UPackageLoader: the objects asked for). */
  _decodeOptions() {
    return {};
  }

  /**
   * @param {any} decoded what decodeFiles() made of the files
   * @param {any} found the decoded model or animation of the file asked for
   * @param {any} decoder
   * @returns {Promise<any>}
   */
  async _result(decoded, found, decoder) {
    throw new Error('a loader says what it makes');
  }
}

class MeshLoader extends RigscopeLoader {
  static output = 'mesh';

  /** @param {import('three').LoadingManager} [manager] */
  constructor(manager) {
    super(manager);
    /** @type {number | 'all'} */
    this.lod = 0;
  }

  /**
   * The level of detail of parts loaded with their levels (UE Viewer's X, X_Lod1…; FModel's
   * X_LOD0…): 0 the finest (the default), N, or 'all' for every level as a mesh of its own, named
   * `X LODN`, as `rigscope convert --lod` makes them.
   * @param {number | 'all'} lod
   */
  setLod(lod) {
    if (!isLod(lod))
      throw new RangeError(
        `${/** @type {typeof RigscopeLoader} */ (this.constructor).loaderName}.setLod(${JSON.stringify(lod)}): a level number from 0, or 'all'`,
      );
    this.lod = lod;
    return this;
  }

  /**
   * The scene's characters in one Group with every clip in `.animations`; a file of textures only
   * (a PSG texture arena) gives an empty Group with its textures in `userData.textures`.
   */
  async _result(decoded, found, decoder) {
    // Laying out, the sky-dome test and posing for room are the viewer's: a loader's Group stands
    // where its file put it.
    const { scene, characters } = await sceneObjects(decoded, decoder, { layout: false, lod: this.lod });
    const group = characters.length === 1 ? characters[0].root : new Group();
    if (characters.length !== 1) for (const c of characters) group.add(c.root);
    group.animations = characters.flatMap((c) => c.clips.map((clip) => clip.build()));
    keep(group.userData, 'character', characters[0] ?? null);
    keep(group.userData, 'characters', characters);
    if (!found)
      keep(
        group.userData,
        'textures',
        await Promise.all(decoded.textures.filter((t) => t.decoded || t.load).map((t) => textureOfRecord(t, decoder))),
      );
    group.userData.records = scene.records.map((r) => ({ ...r }));
    return group;
  }

  /**
   * @param {string | string[]} url
   * @returns {Promise<Group>}
   */
  loadAsync(url, onProgress) {
    return super.loadAsync(/** @type {any} */ (url), onProgress);
  }
}

class AnimationLoader extends RigscopeLoader {
  static output = 'animation';

  constructor(manager) {
    super(manager);
    /** @type {Object3D | import('three').Skeleton | Bone[] | null} */
    this.target = null;
  }

  /** The model the clips are for (a mesh loader's Group, a SkinnedMesh, a Skeleton or Bone[]). */
  setTarget(target) {
    this.target = target;
    return this;
  }

  /** Clips bound to the target, or on the file's own bone names when there is none. */
  async _result(decoded, found) {
    return this.target ? clipsFor(found, this.target) : ownClips(found);
  }

  /**
   * @param {string | string[]} url
   * @returns {Promise<AnimationClip[]>}
   */
  loadAsync(url, onProgress) {
    return super.loadAsync(/** @type {any} */ (url), onProgress);
  }
}

/** Unreal ActorX meshes (.psk, .pskx); given with the .uc script that imports it, placed and textured by it. */
export class PSKLoader extends MeshLoader {
  static loaderName = 'PSKLoader';
  static family = 'unreal';
  /** A .psk a script places is planned by the UE1 family: still a .psk. */
  static fits = (model) => model.format === 'psk' && !model.container;
}
/** Unreal ActorX animations (.psa, with UE Viewer's .config passed beside it). */
export class PSALoader extends AnimationLoader {
  static loaderName = 'PSALoader';
  static family = 'unreal';
}
/** 0 A.D. models (.pmd). */
export class PMDLoader extends MeshLoader {
  static loaderName = 'PMDLoader';
  static family = 'zeroad';
}
/** 0 A.D. animations (PSSA .psa), bound by bone index and count. */
export class PSSALoader extends AnimationLoader {
  static loaderName = 'PSSALoader';
  static family = 'zeroad';
}
/** Unreal Engine 1 vertex meshes: the _d.3d file; load() fetches the _a.3d beside it. */
export class UE1Loader extends MeshLoader {
  static loaderName = 'UE1Loader';
  static family = 'ue1';
}
/** Skate 3 PSG arenas: model arenas resolve with their meshes; texture arenas with an empty Group and their textures in the records. */
export class PSGLoader extends MeshLoader {
  static loaderName = 'PSGLoader';
  static family = 'psg';
}
/**
 * Unreal Engine 1 packages (.u, .utx…): every mesh of the package (or only the one asked for with
 * setMesh) in one Group, each a character with its sequences or its package's Animations, its
 * textures found in the packages passed with it (a .utx beside the .u); a package of textures only
 * gives an empty Group with its textures in `userData.textures`.
 */
export class UPackageLoader extends MeshLoader {
  static loaderName = 'UPackageLoader';
  static family = 'upackage';

  /** @param {import('three').LoadingManager} [manager] */
  constructor(manager) {
    super(manager);
    /** @type {string | null} */
    this.mesh = null;
  }

  /**
   * Only this mesh is decoded and given: its name or its Package.Group.Name (case-insensitive);
   * null for every mesh of the package.
   * @param {string | null} name
   */
  setMesh(name) {
    this.mesh = name;
    return this;
  }

  _decodeOptions() {
    return this.mesh ? { objects: [this.mesh] } : {};
  }
}
