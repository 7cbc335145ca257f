// The decoder from a folder of its own (the esbuild recipe in the README): worker.js + decoders.wasm.
import { PSKLoader } from 'rigscope';

new PSKLoader()
  .setDecoderPath('./rigscope/')
  .setWorkerLimit(1)
  .loadAsync(['./two_bone.psk', './two_bone.psa'])
  .then(
    (group) => {
      window.result = { animations: group.animations.map((c) => c.name) };
    },
    (err) => {
      window.result = { error: err.message };
    },
  );
