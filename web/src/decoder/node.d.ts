// Types for `rigscope/node`: the decoders in Node, synchronous WASM behind the same call surface.
export interface NodeDecoders {
  /** The Emscripten module. */
  module: Record<string, any>;
  call(op: string, args: unknown[]): Promise<any>;
  cancel(): void;
}
export function loadNodeDecoders(): Promise<NodeDecoders>;
