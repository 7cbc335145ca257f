// Types for `rigscope/viewer`: the <rigscope-viewer> element.
import type { DecoderPoolOptions, SceneRecord } from '../index.js';

export interface ViewerClip {
  name: string;
  frames: number;
  fps: number;
  duration: number;
  character: string;
}
export interface ViewerMessage {
  file: string | null;
  text: string;
}
/** The same shape as the viewer page's window.rigscope.snapshot(). */
export interface ViewerSnapshot {
  demo: boolean;
  /** The selected character's name (the hero of a drop at first; PgUp/PgDn step it), or null. */
  selected: string | null;
  characters: {
    name: string;
    visible: boolean;
    bounds: { min: number[]; max: number[] } | null;
    clip: string | null;
    frame: number | null;
    playing: boolean;
    /** Its posed bounds on the picture in CSS pixels from the top left, or null off screen. */
    screen: { x: number; y: number; width: number; height: number } | null;
  }[];
  messages: ViewerMessage[];
}
export interface ViewerLoadDetail {
  clips: ViewerClip[];
  records: SceneRecord[];
}
export interface ViewerErrorDetail {
  records: SceneRecord[];
  messages: ViewerMessage[];
}

/**
 * The element's attributes. `packed` holds a packed scene (base64url, as after `#pack=` in a
 * packed link); its view state fills the view attributes that are not set.
 */
export type RigscopeViewerAttribute =
  | 'src'
  | 'packed'
  | 'clip'
  | 'frame'
  | 'autoplay'
  | 'speed'
  | 'camera'
  | 'background'
  | 'skeleton'
  | 'labels'
  | 'controls'
  | 'up'
  | 'poster'
  | 'alt'
  /** `neutral` (default: a soft room for image-based lighting), `none`, or an equirectangular image URL (`.hdr` or any image). */
  | 'environment'
  /** Tone-mapping exposure, a number of 0 or more (default 1). */
  | 'exposure'
  /** The contact shadow under the characters: on unless `false` or `0`. */
  | 'shadow'
  /**
   * The level of detail of parts that have levels (UE Viewer's `X_Lod1`, FModel's `X_LOD0`): a
   * level number (`0`, the finest, by default; a part with fewer levels shows its coarsest) or
   * `all` (every level a mesh of its own, named `X LODN`). Changed after load, the scene is
   * assembled again; anything else is noted and level 0 is shown.
   */
  | 'lod';

export class RigscopeViewer extends HTMLElement {
  static readonly observedAttributes: RigscopeViewerAttribute[];
  /** The page's shared WebGL renderer: stats.contexts, stats.lost, stats.frames. */
  static readonly renderer: { stats: { contexts: number; lost: number; frames: number } };
  static readonly decoderPool: { readonly workerCount: number; readonly pending: number };
  /**
   * Space-separated URLs of a mesh and its companions (animations, textures, scripts). A token
   * that starts with `#` (`#pack=…`, a packed link's fragment) is a packed scene: files and view
   * state carried inside the page, unpacked in the browser; no file host is needed.
   */
  src: string;
  readonly clips: ViewerClip[];
  readonly currentClip: string | null;
  /** Seconds into the current clip. */
  currentTime: number;
  readonly paused: boolean;
  /** Resolves when the current src has loaded or failed, and a level of detail (`lod`) asked for since is drawn. */
  readonly loaded: Promise<void>;
  readonly messages: ViewerMessage[];
  readonly records: SceneRecord[];
  play(): void;
  pause(): void;
  snapshot(): ViewerSnapshot;
  /**
   * One still picture of what is shown, as PNG bytes, drawn once off screen with the view's looks
   * and camera (another shape than the view keeps its vertical extent). The current clip is paused
   * at `frame` (the file's own numbering) or `time` (seconds) when given, else where it stands; no
   * wall-clock time enters. Waits for the current load; sides from 1 to 4096 pixels.
   */
  renderStill(options: ViewerStillOptions): Promise<Uint8Array>;
  addEventListener<K extends keyof RigscopeViewerEventMap>(
    type: K,
    listener: (this: RigscopeViewer, ev: RigscopeViewerEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: RigscopeViewer, ev: HTMLElementEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** What renderStill draws. */
export interface ViewerStillOptions {
  width: number;
  height: number;
  /** Seconds into the current clip. */
  time?: number;
  /** A frame of the current clip in the file's own numbering (as the `frame` attribute). */
  frame?: number;
  /** No background: alpha 0 where nothing is drawn. */
  transparent?: boolean;
  /** `RRGGBB` or a CSS colour, for this picture alone. */
  background?: string;
}

/** The element's own events (its `error` is a CustomEvent with records, not an ErrorEvent). */
export interface RigscopeViewerEventMap {
  load: CustomEvent<ViewerLoadDetail>;
  error: CustomEvent<ViewerErrorDetail>;
  clipchange: CustomEvent<{ clip: string | null }>;
}

/** Options for the page's one decoder pool (before the first element loads). */
export function configureSharedPool(options: DecoderPoolOptions): void;

declare global {
  interface HTMLElementTagNameMap {
    'rigscope-viewer': RigscopeViewer;
  }
}
