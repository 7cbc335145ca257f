// three.js-style loaders (load / loadAsync / parse, shared decoder worker, dispose), one per format.
// Each parse() returns a Character (meshes) or a decoded animation to hand to
// character.addAnimation().
import { FileLoader, Loader } from 'three';
import { sharedDecoder } from '../decoder/client.js';
import { Character } from './character.js';

class RigscopeLoader extends Loader {
  constructor(manager) {
    super(manager);
    this.decoder = null;
  }

  /** Use another DecoderClient (or the Node host from web/src/decoder/node.js). */
  setDecoder(decoder) {
    this.decoder = decoder;
    return this;
  }

  load(url, onLoad, onProgress, onError) {
    const loader = new FileLoader(this.manager);
    loader.setPath(this.path);
    loader.setResponseType('arraybuffer');
    loader.setRequestHeader(this.requestHeader);
    loader.setWithCredentials(this.withCredentials);
    const name = decodeURIComponent(url.split(/[?#]/)[0].split('/').pop() || url);
    loader.load(url, (buffer) => {
      this.parse(buffer, name).then(onLoad, (err) => {
        if (onError) onError(err);
        else console.error(err);
        this.manager.itemError(url);
      });
    }, onProgress, onError);
  }

  _call(op, args) {
    return (this.decoder ?? sharedDecoder()).call(op, args);
  }

  /** Terminates the shared worker if this loader owns it. */
  dispose() {
    if (!this.decoder) sharedDecoder().dispose();
  }
}

async function named(promise, name) {
  const model = await promise;
  model.file = name;
  return model;
}

export class PSKLoader extends RigscopeLoader {
  /** @returns {Promise<Character>} */
  async parse(buffer, name = 'model.psk') {
    return new Character(await named(this._call('decodePsk', [buffer, name]), name));
  }
}

export class PSALoader extends RigscopeLoader {
  /** `config` is the text of UE Viewer's .config sidecar, if any. @returns decoded animation */
  parse(buffer, name = 'anim.psa', config = '') {
    return named(this._call('decodePsa', [buffer, name, config]), name);
  }
}

export class PMDLoader extends RigscopeLoader {
  async parse(buffer, name = 'model.pmd') {
    return new Character(await named(this._call('decodePmd', [buffer, name]), name));
  }
}

export class PSSALoader extends RigscopeLoader {
  parse(buffer, name = 'anim.psa') {
    return named(this._call('decodePssa', [buffer, name]), name);
  }
}

export class UE1Loader extends RigscopeLoader {
  /** UE1 meshes are two files: load() takes the _d.3d URL and fetches the _a.3d beside it. */
  load(url, onLoad, onProgress, onError) {
    const animUrl = url.replace(/_d(\.3d)$/i, '_a$1');
    const fetchBytes = (u) => new Promise((resolve, reject) => {
      const l = new FileLoader(this.manager);
      l.setPath(this.path);
      l.setResponseType('arraybuffer');
      l.load(u, resolve, onProgress, reject);
    });
    Promise.all([fetchBytes(url), fetchBytes(animUrl)])
      .then(([d, a]) => this.parse(d, a, '', url.split('/').pop(), animUrl.split('/').pop()))
      .then(onLoad, onError ?? console.error);
  }

  async parse(dataBuffer, animBuffer, ucText = '', dataName = 'mesh_d.3d', animName = 'mesh_a.3d', ucName = '') {
    const model = await this._call('decodeUe1', [dataBuffer, dataName, animBuffer, animName, ucText, ucName]);
    model.file = dataName;
    return new Character(model);
  }
}

export class PSGLoader extends RigscopeLoader {
  /** @returns {Promise<Character|object>} a Character for model arenas, the decoded arena otherwise */
  async parse(buffer, name = 'model.psg') {
    const model = await named(this._call('decodePsg', [buffer, name]), name);
    return model.meshes.length ? new Character(model) : model;
  }
}
