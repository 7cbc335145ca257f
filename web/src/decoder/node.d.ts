// Types for `rigscope/node`: the decoders in Node, synchronous WASM behind the same call surface.
export interface NodeDecoders {
  /** The Emscripten module's decoder calls, synchronous (they throw like call()). */
  module: Record<string, any>;
  call(op: string, args: unknown[]): Promise<any>;
  /** False: a call copies its input into the module and leaves the caller's buffers as they were. */
  transfersInput: false;
  cancel(): void;
}
export interface NodeDecoderOptions {
  /** Another `decoders.wasm`: a file path (relative to the working directory), a `file:` URL, or a folder holding one. */
  wasmPath?: string | URL;
}
/** The package's own `decoders.wasm`. */
export const DEFAULT_WASM_URL: URL;
/** A decoder host of its own: a new instance of the process's compiled module (compiled once per `.wasm`). */
export function loadNodeDecoders(options?: NodeDecoderOptions): Promise<NodeDecoders>;
/** The compiled module of a `.wasm` (default: the package's), compiled once per process; a bad path rejects naming it. */
export function compiledDecoders(path?: string | URL): Promise<WebAssembly.Module>;
/** The `.wasm` a decoder path names (a `.wasm` file, or `decoders.wasm` in a folder); none: the package's. */
export function wasmUrlOf(path?: string | URL): URL;
/** A fresh Emscripten instance of a compiled module (nothing compiled; worker_threads use this). */
export function instantiateDecoders(wasmModule: WebAssembly.Module): Promise<Record<string, any>>;
/** A synchronous host on one instance of a compiled module, replaced after a crash. */
export function decoderHost(wasmModule: WebAssembly.Module): Promise<NodeDecoders>;
