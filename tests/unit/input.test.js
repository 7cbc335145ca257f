import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { crc32 } from 'node:zlib';
import { deflateSync, zipSync } from 'fflate';
import {
  FETCH_STALL_MS,
  FETCH_TOTAL_MS,
  MAX_FETCH_BYTES,
  MAX_ZIP_BYTES,
  MAX_ZIP_ENTRIES,
  entriesFromUrls,
  FETCHES_AT_ONCE,
  expandZips,
} from '../../web/src/core/input.js';
import { walk } from '../../web/src/app/input.js';
import { MAX_CAMERA_COORDINATE, buildQuery, packedState, queryWithPackedState, readParams } from '../../web/src/app/params.js';
import { displayName, entryFromBytes } from '../../web/src/core/files.js';

// A directory entry as Chromium gives it: readEntries() hands out at most 100 entries per call.
function fakeDirectory(name, count) {
  const files = Array.from({ length: count }, (_, i) => ({
    isFile: true,
    fullPath: `/${name}/f${i}.psk`,
    file: (ok) => ok(new Blob([new Uint8Array([i])])),
  }));
  return {
    isFile: false,
    fullPath: `/${name}`,
    createReader() {
      let at = 0;
      return {
        readEntries: (ok) => {
          const batch = files.slice(at, at + 100);
          at += batch.length;
          ok(batch);
        },
      };
    },
  };
}

describe('dropped folders and zips', () => {
  it('reads every directory entry, not only the first batch of 100', async () => {
    const out = [];
    await walk(fakeDirectory('mod', 250), out);
    expect(out).toHaveLength(250);
    expect(out[249].path).toMatch(/^mod\/f\d+\.psk$/);
  });

  it('expands zip archives, keeping folder paths and skipping macOS metadata', async () => {
    const zip = zipSync({
      'Models/a.psk': new Uint8Array([1, 2]),
      'Models/b.psa': new Uint8Array([3]),
      '__MACOSX/Models/._a.psk': new Uint8Array([9]),
    });
    const entries = await expandZips([entryFromBytes('pack.zip', zip), entryFromBytes('c.pcx', new Uint8Array([5]))]);
    expect(entries.map((e) => e.path).sort()).toEqual(['c.pcx', 'pack.zip/Models/a.psk', 'pack.zip/Models/b.psa']);
    expect(new Uint8Array(await entries.find((e) => e.name === 'a.psk').read())).toEqual(new Uint8Array([1, 2]));
  });
});

// A zip written member by member, so tests can declare any sizes: `members` are
// { name, data (as stored), method (0 stored, 8 deflated), size (declared inflated size) }.
function zipOf(members) {
  const parts = [],
    directory = [];
  let at = 0;
  for (const m of members) {
    const name = new TextEncoder().encode(m.name);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, m.method, true);
    local.setUint32(14, m.crc ?? 0, true);
    local.setUint32(18, m.data.length, true);
    local.setUint32(22, m.size, true);
    local.setUint16(26, name.length, true);
    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    (central.setUint16(4, 20, true), central.setUint16(6, 20, true));
    central.setUint16(10, m.method, true);
    central.setUint32(16, m.crc ?? 0, true);
    central.setUint32(20, m.data.length, true);
    central.setUint32(24, m.size, true);
    central.setUint16(28, name.length, true);
    central.setUint32(42, at, true);
    parts.push(new Uint8Array(local.buffer), name, m.data);
    directory.push(new Uint8Array(central.buffer), name);
    at += 30 + name.length + m.data.length;
  }
  const size = directory.reduce((n, p) => n + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  (end.setUint16(8, members.length, true), end.setUint16(10, members.length, true));
  (end.setUint32(12, size, true), end.setUint32(16, at, true));
  const all = [...parts, ...directory, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of all) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('zip limits', () => {
  // The classic bomb: 16 MiB of zeros deflate to 16 KiB; the same stream stored 160 times declares
  // 2.5 GiB. Made with fflate, the library the page inflates with.
  const zeros = new Uint8Array(16 * 2 ** 20);
  const bombStream = deflateSync(zeros, { level: 9 });
  const zerosCrc = crc32(zeros);

  it('are named and documented values', () => {
    expect([MAX_ZIP_ENTRIES, MAX_ZIP_BYTES]).toEqual([20000, 2 ** 31]);
  });

  it('refuse a zip bomb from its central directory, before inflating anything', async () => {
    expect(bombStream.length).toBeLessThan(32 * 1024);
    const members = Array.from({ length: 160 }, (_, i) => ({
      name: `zeros${i}.psk`,
      data: bombStream,
      method: 8,
      size: zeros.length,
      crc: zerosCrc,
    }));
    const bomb = zipOf(members);
    await expect(expandZips([entryFromBytes('bomb.zip', bomb)])).rejects.toThrow(
      'bomb.zip: its entries declare 2.5 GiB when inflated, over the 2 GiB limit per drop',
    );
  });

  it('stop an entry that inflates past the size its directory declares', async () => {
    const liar = zipOf([{ name: 'small.psk', data: bombStream, method: 8, size: 1024 }]);
    await expect(expandZips([entryFromBytes('liar.zip', liar)])).rejects.toThrow(
      'liar.zip: small.psk inflates past the 1 KiB its directory declares; refused (a zip bomb?)',
    );
    const short = zipOf([{ name: 'big.psk', data: deflateSync(new Uint8Array(100)), method: 8, size: 5000 }]);
    await expect(expandZips([entryFromBytes('short.zip', short)])).rejects.toThrow(
      'short.zip: big.psk inflates to 100 bytes, its directory declares 5000',
    );
  });

  it('inflate honest entries, stored and deflated, to their bytes', async () => {
    const text = new TextEncoder().encode('PSK '.repeat(5000));
    const zip = zipOf([
      { name: 'a/stored.txt', data: text, method: 0, size: text.length },
      { name: 'a/deflated.txt', data: deflateSync(text), method: 8, size: text.length },
      { name: 'a/', data: new Uint8Array(0), method: 0, size: 0 },
    ]);
    const out = await expandZips([entryFromBytes('honest.zip', zip)]);
    expect(out.map((e) => e.path)).toEqual(['honest.zip/a/stored.txt', 'honest.zip/a/deflated.txt']);
    for (const e of out) expect(new Uint8Array(await e.read())).toEqual(text);
    // 16 MiB inflated in slices, the whole stream checked.
    const big = await expandZips([
      entryFromBytes('one.zip', zipOf([{ name: 'zeros.bin', data: bombStream, method: 8, size: zeros.length }])),
    ]);
    const inflated = new Uint8Array(await big[0].read());
    expect([inflated.length, inflated.every((v) => v === 0)]).toEqual([zeros.length, true]);
  });

  it('count entries across the zips of one drop', async () => {
    const files = Object.fromEntries(Array.from({ length: MAX_ZIP_ENTRIES + 1 }, (_, i) => [`f${i}.uc`, new Uint8Array([i & 255])]));
    await expect(expandZips([entryFromBytes('many.zip', zipSync(files, { level: 0 }))])).rejects.toThrow(
      'many.zip: 20,001 entries, over the limit of 20,000 entries per drop',
    );
    const six = zipSync(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.uc`, new Uint8Array([i])])));
    await expect(expandZips([entryFromBytes('one.zip', six), entryFromBytes('two.zip', six)], { maxZipEntries: 10 })).rejects.toThrow(
      'two.zip: 6 entries (12 with the zips before it), over the limit of 10 entries per drop',
    );
    const mib = zipSync({ 'a.bin': new Uint8Array(2 ** 20 + 2 ** 19) });
    await expect(expandZips([entryFromBytes('one.zip', mib), entryFromBytes('two.zip', mib)], { maxZipBytes: 2 ** 21 })).rejects.toThrow(
      'two.zip: its entries declare 1.5 MiB when inflated (3 MiB with the zips before it), over the 2 MiB limit per drop',
    );
  });

  it('name damaged archives and unsupported entries', async () => {
    await expect(expandZips([entryFromBytes('junk.zip', new Uint8Array(100).fill(7))])).rejects.toThrow(
      'junk.zip: not a zip archive (no end-of-central-directory record)',
    );
    const bzip = zipOf([{ name: 'x.psk', data: new Uint8Array(10), method: 12, size: 10 }]);
    await expect(expandZips([entryFromBytes('b.zip', bzip)])).rejects.toThrow(
      'b.zip: x.psk uses compression method 12; Rigscope reads stored (0) and deflated (8) entries',
    );
  });
});

describe('links', () => {
  let server, base;
  let open = 0,
    widest = 0;
  // /size/N: N bytes with Content-Length; /endless: chunks forever; /stall: 10 bytes, then
  // nothing; /trickle: a byte every 20 ms; /missing: 404.
  beforeAll(async () => {
    server = createServer((req, res) => {
      const timers = [];
      req.on('close', () => timers.forEach(clearInterval));
      if (req.url.startsWith('/slow/')) {
        // Answers after 100 ms, counting the requests open at once.
        open++;
        widest = Math.max(widest, open);
        const n = Number(req.url.split('/')[2]);
        setTimeout(() => {
          open--;
          res.writeHead(200, { 'Content-Length': n });
          res.end(Buffer.alloc(n, n & 255));
        }, 100);
      } else if (req.url.startsWith('/size/')) {
        const n = Number(req.url.split('/')[2]);
        res.writeHead(200, { 'Content-Length': n, 'Access-Control-Allow-Origin': '*' });
        res.end(Buffer.alloc(n, 1));
      } else if (req.url === '/endless') {
        res.writeHead(200);
        timers.push(setInterval(() => res.write(Buffer.alloc(64 * 1024, 2)), 1));
      } else if (req.url === '/stall') {
        res.writeHead(200);
        res.write(Buffer.alloc(10));
      } else if (req.url === '/trickle') {
        res.writeHead(200);
        timers.push(setInterval(() => res.write(Buffer.alloc(1)), 20));
      } else if (req.url.startsWith('/pack.zip')) {
        res.writeHead(200);
        res.end(zipSync({ 'm/a.psk': new Uint8Array([1, 2, 3]) }));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${server.address().port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('are named and documented values', () => {
    expect([MAX_FETCH_BYTES, FETCH_STALL_MS, FETCH_TOTAL_MS]).toEqual([2 ** 30, 30000, 600000]);
  });

  it('fetch within the limits, zips expanded, names from the URL', async () => {
    const [a] = await entriesFromUrls([`${base}/size/300`]);
    expect([a.name, a.size]).toEqual(['300', 300]);
    const [m] = await entriesFromUrls([`${base}/pack.zip?x=1`]);
    expect(m.path).toBe('pack.zip/m/a.psk');
    await expect(entriesFromUrls([`${base}/missing`])).rejects.toThrow(`Could not fetch ${base}/missing: HTTP 404`);
  });

  it('fetch a few at once, in the order given, and count the files in', async () => {
    widest = 0;
    const sizes = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20];
    const counts = [];
    const entries = await entriesFromUrls(
      sizes.map((n) => `${base}/slow/${n}`),
      ({ done, count }) => counts.push([done, count]),
    );
    expect(entries.map((e) => [e.name, e.size])).toEqual(sizes.map((n) => [String(n), n]));
    expect(new Uint8Array(await entries[3].read())[0]).toBe(14);
    expect(widest).toBe(FETCHES_AT_ONCE);
    expect(counts.every(([, count]) => count === sizes.length)).toBe(true);
    expect(counts.at(-1)[0]).toBeGreaterThanOrEqual(sizes.length - FETCHES_AT_ONCE);
    // The first failure in the URLs' order is the one named, whatever finished first.
    await expect(entriesFromUrls([`${base}/slow/3`, `${base}/missing`, `${base}/size/5`])).rejects.toThrow(
      `Could not fetch ${base}/missing: HTTP 404`,
    );
  });

  it('refuse a file whose Content-Length passes the byte cap, before reading it', async () => {
    await expect(entriesFromUrls([`${base}/size/5000`], null, { maxFetchBytes: 4096 })).rejects.toThrow(
      `Could not fetch ${base}/size/5000: it is 4.9 KiB, over the 4 KiB limit for files opened from a link`,
    );
  });

  it('stop an endless download at the byte cap', async () => {
    let seen = 0;
    await expect(
      entriesFromUrls(
        [`${base}/endless`],
        ({ got }) => {
          seen = got;
        },
        { maxFetchBytes: 2 ** 20 },
      ),
    ).rejects.toThrow(`Could not fetch ${base}/endless: more than 1 MiB arrived, over the 1 MiB limit for files opened from a link`);
    expect(seen).toBeLessThanOrEqual(2 ** 20);
  });

  it('give up on a server that stalls, and on one that trickles', async () => {
    await expect(entriesFromUrls([`${base}/stall`], null, { stallMs: 300 })).rejects.toThrow(
      `Could not fetch ${base}/stall: no data arrived for 0.3 s`,
    );
    await expect(entriesFromUrls([`${base}/trickle`], null, { stallMs: 5000, totalMs: 400 })).rejects.toThrow(
      `Could not fetch ${base}/trickle: still downloading after 0.4 s`,
    );
  });
});

describe('page parameters', () => {
  const at = 'https://wiki.example/viewer/index.html';
  it('turn an unreadable file= into a problem instead of throwing', () => {
    const p = readParams('?file=http://[&file=models/a.psk&file=javascript:alert(1)', at);
    expect(p.files).toEqual(['https://wiki.example/viewer/models/a.psk']);
    expect(p.problems).toEqual([
      'file=http://[ is not a valid URL; it was not opened',
      'file=javascript:alert(1) is a javascript: URL; only http, https and data URLs can be opened',
    ]);
    // A link that names files never falls back to the demo.
    expect(readParams('?file=http://[', at).demo).toBe(false);
    expect(readParams('', at).demo).toBe(true);
  });

  it('keep the default view for cameras that cannot show anything, and say why', () => {
    const camera = (v) => readParams(`?camera=${v}`, at);
    expect(camera('1,2,3,0,0,0')).toMatchObject({ camera: [1, 2, 3, 0, 0, 0], problems: [] });
    expect(MAX_CAMERA_COORDINATE).toBe(1e6);
    for (const [v, why] of [
      ['1e308,0,0,0,0,0', 'has a coordinate beyond ±1,000,000'],
      ['1,2,3,0,0,Infinity', 'has a value that is not a finite number'],
      ['1,2,3,0,0,', 'has a value that is not a finite number'],
      ['NaN,0,0,0,0,0', 'has a value that is not a finite number'],
      ['1,2,3', 'has 3 values, not 6 (px,py,pz,tx,ty,tz)'],
      ['5,5,5,5,5,5', 'puts the camera on its target'],
    ])
      expect(camera(v), v).toMatchObject({ camera: undefined, problems: [`camera=${v} ${why}; the default view is used`] });
  });

  it('name other values they ignore', () => {
    const p = readParams('?frame=abc&speed=&bg=red&clip=Walk', at);
    expect([p.frame, p.speed, p.bg, p.clip]).toEqual([undefined, undefined, undefined, 'Walk']);
    expect(p.problems).toEqual([
      'frame=abc is not a number; ignored',
      'speed= is not a number; ignored',
      'bg=red is not a colour as RRGGBB; ignored',
    ]);
  });
});

describe('lod= in links', () => {
  const at = 'https://wiki.example/viewer/index.html';
  it('reads a level number or all, and names any other value it ignores', () => {
    expect(readParams('?lod=2', at)).toMatchObject({ lod: 2, problems: [] });
    expect(readParams('?lod=all', at)).toMatchObject({ lod: 'all', problems: [] });
    expect(readParams('?lod=0', at)).toMatchObject({ lod: 0, problems: [] });
    expect(readParams('', at).lod).toBe(undefined);
    for (const v of ['-1', 'abc', '1.5', '', '2e1'])
      expect(readParams(`?lod=${v}`, at), v).toMatchObject({
        lod: undefined,
        problems: [`lod=${v} is not a level of detail (0 the finest, 1, 2… or all); ignored`],
      });
  });

  it('mesh= (of a UE1 package) is read, written by Copy link and carried by packs', () => {
    expect(readParams('?mesh=%20sg_GL1st%20', at).mesh).toBe('sg_GL1st');
    expect(readParams('?mesh=', at).mesh).toBeUndefined();
    expect(buildQuery({ mesh: 'Pkg.Group.sg_GL1st', clip: 'Fire' })).toBe('clip=Fire&mesh=Pkg.Group.sg_GL1st');
    expect(readParams(`?${buildQuery({ mesh: 'Pkg.Group.sg_GL1st' })}`, at).mesh).toBe('Pkg.Group.sg_GL1st');
    expect(packedState({ mesh: 'sg_GL1st', files: ['https://x/a.u'] })).toEqual({ mesh: 'sg_GL1st' });
    expect(readParams(`?${queryWithPackedState('', { mesh: 'C4' })}`, at).mesh).toBe('C4');
  });

  it('are written by Copy link for a level other than 0, read back as written, and carried by packs', () => {
    expect(buildQuery({ lod: 2, clip: 'Idle' })).toBe('clip=Idle&lod=2');
    expect(buildQuery({ lod: 'all' })).toBe('lod=all');
    expect(buildQuery({ lod: 0 })).toBe('');
    for (const lod of [3, 'all']) expect(readParams(`?${buildQuery({ lod })}`, at).lod).toBe(lod);
    expect(packedState({ lod: 2, files: ['https://x/a.psk'] })).toEqual({ lod: '2' });
    // A pack's lod is checked like the query's: a bad one is named and dropped.
    expect(readParams(`?${queryWithPackedState('lod=1', { lod: 'all' })}`, at).lod).toBe('all');
    expect(readParams(`?${queryWithPackedState('', { lod: '-3' })}`, at).problems).toEqual([
      'lod=-3 is not a level of detail (0 the finest, 1, 2… or all); ignored',
    ]);
  });
});

describe('file names as shown', () => {
  it('write out direction-changing and invisible characters', () => {
    expect(displayName('evil\u202Ekcp.exe.psk')).toBe('evil⟪U+202E⟫kcp.exe.psk');
    const controls = '\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C\uFEFF\u00AD\u2028\u0007';
    expect(displayName(`a${controls}b`)).toBe(
      `a${[...controls].map((c) => `⟪U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟫`).join('')}b`,
    );
    // Letters of any script, joiners (Persian, emoji) and plain spacing stay as they are.
    for (const plain of ['Модель.psk', 'مدل\u200Cها.pmd', 'שלום.psa', '👩\u200D🔧.pcx', 'a b\tc']) expect(displayName(plain)).toBe(plain);
  });
});
