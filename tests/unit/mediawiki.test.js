// The MediaWiki extension without a wiki: the build script's player closure, the extension's
// manifest against its classes and messages, and its PHP header checks against the C++ detectFormat
// on every fixture (when PHP is installed; the wiki itself is tested in tests/e2e/mediawiki.test.js).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMediaWiki, playerFiles } from '../../scripts/build-mediawiki.mjs';
import { compiledDecoders, instantiateDecoders } from '../../web/src/decoder/node.js';
import { packScene } from '../../web/src/core/pack.js';

const root = new URL('../..', import.meta.url).pathname;
const EXT = join(root, 'integrations/mediawiki/Rigscope');
const FIXTURES = join(root, 'build/fixtures');
const SAMPLES = join(root, '../shared/samples');
const hasPhp = (() => {
  try {
    execFileSync('php', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('scripts/build-mediawiki.mjs', () => {
  it('copies the element and what it reaches (chunks, worker, wasm), nothing else', () => {
    const site = mkdtempSync(join(tmpdir(), 'rigscope-site-'));
    mkdirSync(join(site, 'assets'));
    writeFileSync(join(site, 'rigscope-viewer.js'), 'import"./assets/shared-1.js";new URL("assets/worker-2.js",import.meta.url)');
    writeFileSync(join(site, 'assets/shared-1.js'), 'export const x=1;import("./lazy-3.js")');
    writeFileSync(join(site, 'assets/lazy-3.js'), 'export {}');
    writeFileSync(join(site, 'assets/worker-2.js'), 'new URL("decoders-4.wasm",import.meta.url)');
    writeFileSync(join(site, 'assets/decoders-4.wasm'), '\0asm');
    writeFileSync(join(site, 'assets/index-5.js'), 'the viewer page, not the element');
    expect(playerFiles(site)).toEqual([
      'assets/decoders-4.wasm',
      'assets/lazy-3.js',
      'assets/shared-1.js',
      'assets/worker-2.js',
      'rigscope-viewer.js',
    ]);
    const out = join(site, 'out');
    const { files } = buildMediaWiki(site, out);
    expect(files.every((f) => existsSync(join(out, f)))).toBe(true);
    expect(existsSync(join(out, 'assets/index-5.js'))).toBe(false);
    rmSync(join(site, 'assets/decoders-4.wasm'));
    expect(() => buildMediaWiki(site, out)).toThrow(/reaches no \.wasm/);
    rmSync(site, { recursive: true, force: true });
  });
});

describe('the extension manifest', () => {
  const manifest = JSON.parse(readFileSync(join(EXT, 'extension.json'), 'utf8'));
  const php = readdirSync(join(EXT, 'src')).map((f) => readFileSync(join(EXT, 'src', f), 'utf8'));
  const en = JSON.parse(readFileSync(join(EXT, 'i18n/en.json'), 'utf8'));
  const qqq = JSON.parse(readFileSync(join(EXT, 'i18n/qqq.json'), 'utf8'));

  it('registers a handler for each MIME type the checks give, and a method for each hook', () => {
    const check = readFileSync(join(EXT, 'src/ModelFileCheck.php'), 'utf8');
    const mimes = [...check.matchAll(/'((?:application|model)\/x-[a-z0-9-]+)' => \[/g)].map((m) => m[1]);
    expect(Object.keys(manifest.MediaHandlers).sort()).toEqual([...new Set(mimes)].sort());
    const hooks = readFileSync(join(EXT, 'src/Hooks.php'), 'utf8');
    // HookContainer's rule: "on" and the hook's name, with ':' and '-' as '_' (MessageCache::get).
    for (const name of Object.keys(manifest.Hooks)) expect(hooks).toContain(`public function on${name.replace(/[:-]/g, '_')}(`);
    expect(manifest.manifest_version).toBe(2);
    expect(manifest.AutoloadNamespaces).toEqual({ 'MediaWiki\\Extension\\Rigscope\\': 'src/' });
  });

  it('documents every message it uses, in en.json and qqq.json', () => {
    // wfMessage( 'key' ), ->msg( 'key' ) and an upload error's [ 'key', … ].
    const calls = /(?:wfMessage|msg)\(\s*'(rigscope-[a-z-]+)'|\$error = \[ '(rigscope-[a-z-]+)'/g;
    const used = new Set(php.flatMap((text) => [...text.matchAll(calls)].map((m) => m[1] ?? m[2])));
    expect(used.size).toBeGreaterThan(10);
    for (const m of Object.values(manifest.ResourceModules).flatMap((mod) => mod.messages ?? [])) used.add(m);
    // Keys built from a field name: rigscope-facts-pairedwith, rigscope-facts-boundto.
    used.delete('rigscope-facts-');
    for (const key of used) {
      expect(en, key).toHaveProperty([key]);
      expect(qqq, key).toHaveProperty([key]);
    }
    expect(Object.keys(qqq).sort()).toEqual(Object.keys(en).sort());
  });

  it('names no class by an old name that current MediaWiki no longer has or keeps only as a deprecated alias', () => {
    // Html and Title lost their global aliases (deprecated since 1.40) in MediaWiki master
    // (1.47.0-wmf.3); the others there are deprecated aliases of namespaced names: Parser and
    // ParserOutput since 1.42, PPFrame 1.43, File 1.44, the media classes and the three hooks'
    // MediaWiki\Hook names 1.46. wfExpandUrl() is hard-deprecated since 1.45. Compat aliases the
    // current names on 1.39, where only the old ones exist, so it alone names the old ones.
    const globals = [
      'Html',
      'Title',
      'Parser',
      'ParserOutput',
      'PPFrame',
      'File',
      'MediaHandler',
      'ImageHandler',
      'ThumbnailImage',
      'MediaTransformError',
      'TransformParameterError',
    ].join('|');
    const hooks = ['BeforePageDisplayHook', 'ParserFirstCallInitHook', 'UploadVerifyFileHook'].join('|');
    const gone = new RegExp(
      `^use (${globals});$|(?<![\\w\\\\])\\\\(${globals})\\b|\\bMediaWiki\\\\Hook\\\\(${hooks})\\b|\\bwfExpandUrl\\(`,
      'm',
    );
    const files = readdirSync(join(EXT, 'src')).filter((f) => f !== 'Compat.php');
    expect(files).toContain('Hooks.php');
    for (const f of files) expect(readFileSync(join(EXT, 'src', f), 'utf8'), f).not.toMatch(gone);
    expect(manifest.callback).toBe('MediaWiki\\Extension\\Rigscope\\Compat::onRegistration');
  });
});

/** Runs ModelFileCheck (no MediaWiki needed) over files: [{ path, name }] → [{ kind, error }]. */
function phpCheck(files) {
  const script = `
require ${JSON.stringify(join(EXT, 'src/ModelFileCheck.php'))};
use MediaWiki\\Extension\\Rigscope\\ModelFileCheck;
$out = [];
foreach ( json_decode( stream_get_contents( STDIN ), true ) as $f ) {
	$head = (string)file_get_contents( $f['path'], false, null, 0, ModelFileCheck::HEAD_BYTES );
	$check = ModelFileCheck::check( $f['path'], $f['name'] );
	$out[] = [ 'kind' => ModelFileCheck::detectHead( $head, filesize( $f['path'] ), $f['name'] ), 'check' => $check['kind'], 'error' => $check['error'] ];
}
echo json_encode( $out );`;
  return JSON.parse(execFileSync('php', ['-r', script], { input: JSON.stringify(files), encoding: 'utf8' }));
}

describe.skipIf(!hasPhp || !existsSync(FIXTURES))('ModelFileCheck (PHP) against detectFormat (C++)', () => {
  const models = /\.(psk|pskx|psa|pmd|psg|3d|uc|u|utx)$/i;
  // The project's fixtures, and the real samples when ../shared is there.
  const files = [FIXTURES, SAMPLES]
    .filter((dir) => existsSync(dir))
    .flatMap((dir) =>
      readdirSync(dir, { recursive: true })
        .map((f) => String(f))
        .filter((f) => models.test(f) && statSync(join(dir, f)).isFile())
        .map((f) => ({ path: join(dir, f), name: f.split('/').pop() })),
    );

  it('finds the same kind in every fixture', async () => {
    const M = await instantiateDecoders(await compiledDecoders());
    const results = phpCheck(files);
    expect(files.length).toBeGreaterThan(20);
    files.forEach((f, i) => {
      const bytes = readFileSync(f.path);
      const cpp = M.detectFormat(new Uint8Array(bytes.subarray(0, 65536)), bytes.length, f.name);
      expect(results[i].kind ?? 'unknown', f.name).toBe(cpp);
    });
  });

  it("accepts each fixture under its own name, and refuses it under another family's, naming field and byte", () => {
    const results = phpCheck(files);
    // Files broken on purpose past their header still pass: only the decoders read further.
    files.forEach((f, i) => expect(results[i].error, f.path).toBeNull());
    const [psk] = phpCheck([{ path: join(FIXTURES, 'arm.pmd'), name: 'Arm.psk' }]);
    expect(psk.error).toBe('PSK Arm.psk: file does not start with an ACTRHEAD chunk (found "PSMD\\x04") (it is a pmd file) (at byte 0)');
    const [psg] = phpCheck([{ path: join(FIXTURES, 'two_bone.psk'), name: 'Board.psg' }]);
    expect(psg.error).toMatch(/^PSG Board\.psg: magic is not \\x89RW4 .*\(at byte 0\)$/);
  });

  it('takes a .uc as text, refusing one with a NUL byte at its offset, and pairs it with the UE1 mesh of its name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-uc-'));
    const script = '#exec MESH IMPORT MESH=mar ANIVFILE=MODELS\\mar_a.3d DATAFILE=MODELS\\mar_d.3d\n';
    // The line that imports a mesh sits across the 64 KiB reads.
    writeFileSync(join(dir, 'long.uc'), `${'/'.repeat(65536 - 5)}\n${script}`);
    writeFileSync(join(dir, 'bad.uc'), Buffer.concat([Buffer.from('class X;\n'), Buffer.from([0]), Buffer.from('rest')]));
    const [long, bad, pmd] = phpCheck([
      { path: join(dir, 'long.uc'), name: 'Long.uc' },
      { path: join(dir, 'bad.uc'), name: 'Bad.uc' },
      { path: join(FIXTURES, 'arm.pmd'), name: 'Arm.uc' },
    ]);
    expect(long).toMatchObject({ kind: 'uc', check: 'uc', error: null });
    expect(bad.error).toBe('UnrealScript Bad.uc: a NUL byte: a .uc script is text (at byte 9)');
    expect(pmd.error).toBe('UnrealScript Arm.uc: a .uc script is text, these bytes are a pmd file (found "PSMD\\x04") (at byte 0)');
    const header = JSON.parse(
      execFileSync(
        'php',
        [
          '-r',
          `require ${JSON.stringify(join(EXT, 'src/ModelFileCheck.php'))}; echo json_encode( MediaWiki\\Extension\\Rigscope\\ModelFileCheck::check( $argv[1], 'Long.uc' )['header'] );`,
          join(dir, 'long.uc'),
        ],
        { encoding: 'utf8' },
      ),
    );
    expect(header).toEqual({ importsMesh: true });
    const candidates = (name) =>
      JSON.parse(
        execFileSync(
          'php',
          [
            '-r',
            `require ${JSON.stringify(join(EXT, 'src/Companions.php'))}; echo json_encode( MediaWiki\\Extension\\Rigscope\\Companions::candidates( $argv[1] ) );`,
            name,
          ],
          { encoding: 'utf8' },
        ),
      );
    expect(candidates('Mar_rifle_d.3d')).toEqual(['Mar_rifle_a.3d', 'Mar_rifle.uc']);
    expect(candidates('Mar_rifle_a.3d')).toEqual(['Mar_rifle_d.3d', 'Mar_rifle.uc']);
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads a bundle's header only, and refuses one whose container is damaged", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-bundle-'));
    const signature = Buffer.from([0x89, 0x52, 0x53, 0x42, 0x0d, 0x0a, 0x1a, 0x0a]);
    const bytes = (name) => ({ name, bytes: readFileSync(join(FIXTURES, name)) });
    writeFileSync(
      join(dir, 'good.rigscope'),
      Buffer.concat([signature, packScene({ files: [bytes('two_bone.psk'), bytes('two_bone.psa')], state: { clip: 'Bend' } })]),
    );
    writeFileSync(join(dir, 'bad.rigscope'), Buffer.concat([signature, Buffer.from('no deflate here')]));
    const [good, bad] = phpCheck([
      { path: join(dir, 'good.rigscope'), name: 'Good.rigscope' },
      { path: join(dir, 'bad.rigscope'), name: 'Bad.rigscope' },
    ]);
    expect(good).toMatchObject({ kind: 'bundle', check: 'bundle', error: null });
    expect(bad.error).toMatch(/^Rigscope bundle Bad\.rigscope: .*\(at byte \d+\)$/);
    rmSync(dir, { recursive: true, force: true });
  });
});

/**
 * Runs Inspector::together (the facts of a file read with its companions) outside MediaWiki: its
 * services are stand-ins, and the command line is a script of answers, one per run. The stash
 * keeps what it is given until `expire` empties it (an hour, a week: past every time to live).
 * @param {{ stdout: string, exit: number }[]} answers what each run of `rigscope inspect` prints
 * @param {('view' | 'expire')[]} steps a page view asking for the facts, or time passing
 * @returns {{ results: (object | null)[], runs: number, words: string[][] }}
 */
function phpTogether(answers, steps) {
  const script = `
namespace MediaWiki { class MediaWikiServices {
	public static $stash = [];
	public static function getInstance() { return new self(); }
	public function getMainConfig() { return new class { public function get( $name ) { return $name === 'RigscopeNode' ? 'node' : ( $name === 'RigscopeLimits' ? [] : __FILE__ ); } }; }
	public function getMainObjectStash() { return new class {
		const TTL_WEEK = 604800;
		public function makeKey( ...$parts ) { return implode( ':', $parts ); }
		public function get( $key ) { return MediaWikiServices::$stash[$key] ?? false; }
		public function set( $key, $value, $ttl ) { MediaWikiServices::$stash[$key] = $value; }
	}; }
} }
namespace MediaWiki\\Shell { class Shell {
	const RESTRICT_DEFAULT = 39; const NO_NETWORK = 8;
	public static $answers = [];
	public static $runs = 0;
	public static $words = [];
	public static function isDisabled() { return false; }
	public static function command( ...$words ) { Shell::$words[] = $words[0]; return new class {
		public function limits( $l ) { return $this; }
		public function restrict( $r ) { return $this; }
		public function environment( $e ) { return $this; }
		public function execute() {
			$answer = Shell::$answers[Shell::$runs++];
			return new class( $answer ) {
				public function __construct( private array $a ) {}
				public function getStdout() { return $this->a['stdout']; }
				public function getStderr() { return ''; }
				public function getExitCode() { return $this->a['exit']; }
			};
		}
	}; }
} }
namespace MediaWiki\\FileRepo\\File { class File {
	public function __construct( private string $name, private string $path ) {}
	public function getName() { return $this->name; }
	public function getSha1() { return sha1_file( $this->path ); }
	public function getLocalRefPath() { return $this->path; }
} }
namespace {
	use MediaWiki\\FileRepo\\File\\File;
	class PoolCounterWorkViaCallback {
		public function __construct( private string $type, private string $key, private array $callbacks ) {}
		public function execute() { return ( $this->callbacks['doWork'] )(); }
	}
	function wfTempDir() { return sys_get_temp_dir(); }
	function wfDebugLog( $channel, $text ) {}
	require ${JSON.stringify(join(EXT, 'src/ServerCommand.php'))};
	require ${JSON.stringify(join(EXT, 'src/Inspector.php'))};
	$input = json_decode( stream_get_contents( STDIN ), true );
	MediaWiki\\Shell\\Shell::$answers = $input['answers'];
	$anim = new File( 'Walk.psa', __FILE__ );
	$mesh = new File( 'Hero.psk', __FILE__ );
	$results = [];
	foreach ( $input['steps'] as $step ) {
		if ( $step === 'expire' ) {
			MediaWiki\\MediaWikiServices::$stash = [];
			// A new request: nothing is kept in the process either.
			( function () { self::$together = []; } )->bindTo( null, MediaWiki\\Extension\\Rigscope\\Inspector::class )();
			continue;
		}
		$results[] = MediaWiki\\Extension\\Rigscope\\Inspector::together( $anim, [ $mesh ] );
	}
	echo json_encode( [ 'results' => $results, 'runs' => MediaWiki\\Shell\\Shell::$runs, 'words' => MediaWiki\\Shell\\Shell::$words ] );
}`;
  const file = join(mkdtempSync(join(tmpdir(), 'rigscope-together-')), 'together.php');
  writeFileSync(file, `<?php\n${script}`);
  try {
    return JSON.parse(execFileSync('php', [file], { input: JSON.stringify({ answers, steps }), encoding: 'utf8' }));
  } finally {
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
}

describe.skipIf(!hasPhp)('Inspector::together (PHP): a file read with its companions on the server', () => {
  const record = {
    file: '/tmp/rigscope-0123456789abcdef/Walk.psa',
    kind: 'animation',
    boundTo: 'Hero.psk',
    sequences: [{ name: 'Walk', frames: 21 }],
  };
  const answered = { stdout: JSON.stringify([{ file: '/tmp/rigscope-0123456789abcdef/Hero.psk', kind: 'model' }, record]), exit: 0 };
  const kept = { ...record, file: 'Walk.psa', clips: [{ name: 'Walk', frames: 21 }] };

  it('keeps an answer: the next view reads it from the stash, running nothing', () => {
    const { results, runs } = phpTogether([answered], ['view', 'view']);
    expect(results).toEqual([kept, kept]);
    expect(runs).toBe(1);
  });

  it('keeps a failed run (killed, crashed: no JSON) for a while, not for a week: views meanwhile run nothing, a view after asks again', () => {
    const { results, runs } = phpTogether([{ stdout: '', exit: 1 }, answered], ['view', 'view', 'expire', 'view']);
    expect(results).toEqual([null, null, kept]);
    expect(runs).toBe(2);
  });

  it('runs the command line bounded: through bounded.sh, with its wall clock and data memory', () => {
    const { words } = phpTogether([answered], ['view']);
    expect(words[0].slice(0, 4)).toEqual(['/bin/bash', join(EXT, 'bin/bounded.sh'), '60', String(2048 * 1024)]);
    expect(words[0].slice(4, 7)).toEqual(['node', expect.any(String), 'inspect']);
  });
});

describe.skipIf(!existsSync('/proc/self/environ'))('bin/bounded.sh', () => {
  // Under firejail, MediaWiki's limit.sh and its timeout carry the run's mark too (firejail hands
  // the environment to them): here a bash that carries it stands in for them.
  const bounded = (command) =>
    execFileSync(
      'bash',
      ['-c', `bash "$0" 30 1000000 bash -c "$1"; echo "wrapper alive, status $?"`, join(EXT, 'bin/bounded.sh'), command],
      {
        env: { ...process.env, RIGSCOPE_RUN: `test-${process.pid}` },
        encoding: 'utf8',
      },
    );

  it("kills what the command left behind, not the wrappers that started it, and passes the command's status on", () => {
    const tag = `61${process.pid % 100000}`;
    expect(bounded(`setsid sleep ${tag}.5 & exit 3`)).toBe('wrapper alive, status 3\n');
    expect(execFileSync('bash', ['-c', `pgrep -f 'slee[p] ${tag}' || true`], { encoding: 'utf8' })).toBe('');
  });
});

/** MediaWiki 1.39's names of the classes and interfaces the extension names: { name: 'class' | 'interface' }. */
const NAMES_1_39 = {
  Html: 'class',
  Title: 'class',
  Parser: 'class',
  PPFrame: 'interface',
  File: 'class',
  ImageHandler: 'class',
  ThumbnailImage: 'class',
  MediaTransformError: 'class',
  TransformParameterError: 'class',
  'MediaWiki\\Hook\\BeforePageDisplayHook': 'interface',
  'MediaWiki\\Hook\\ParserFirstCallInitHook': 'interface',
  'MediaWiki\\Hook\\UploadVerifyFileHook': 'interface',
  'MediaWiki\\Hook\\SoftwareInfoHook': 'interface',
  // Hooks with the same names on 1.39 as now.
  'MediaWiki\\Hook\\MimeMagicInitHook': 'interface',
  'MediaWiki\\Hook\\MimeMagicGuessFromContentHook': 'interface',
  'MediaWiki\\Hook\\MimeMagicImproveFromExtensionHook': 'interface',
  'MediaWiki\\Page\\Hook\\ImageOpenShowImageInlineBeforeHook': 'interface',
};

/** Each name current MediaWiki (master, 1.47.0-wmf.3) gives what 1.39 names otherwise. */
const RENAMED = {
  'MediaWiki\\Html\\Html': 'Html',
  'MediaWiki\\Title\\Title': 'Title',
  'MediaWiki\\Parser\\Parser': 'Parser',
  'MediaWiki\\Parser\\PPFrame': 'PPFrame',
  'MediaWiki\\FileRepo\\File\\File': 'File',
  'MediaWiki\\Media\\ImageHandler': 'ImageHandler',
  'MediaWiki\\Media\\ThumbnailImage': 'ThumbnailImage',
  'MediaWiki\\Media\\MediaTransformError': 'MediaTransformError',
  'MediaWiki\\Media\\TransformParameterError': 'TransformParameterError',
  'MediaWiki\\Output\\Hook\\BeforePageDisplayHook': 'MediaWiki\\Hook\\BeforePageDisplayHook',
  'MediaWiki\\Parser\\Hook\\ParserFirstCallInitHook': 'MediaWiki\\Hook\\ParserFirstCallInitHook',
  'MediaWiki\\Upload\\Hook\\UploadVerifyFileHook': 'MediaWiki\\Hook\\UploadVerifyFileHook',
  'MediaWiki\\Specials\\Hook\\SoftwareInfoHook': 'MediaWiki\\Hook\\SoftwareInfoHook',
};

/** PHP braced namespace blocks declaring each name as an empty class or interface: { name: kind }. */
function declare(names) {
  return Object.entries(names)
    .map(([name, kind]) => {
      const at = name.lastIndexOf('\\');
      return `namespace ${name.slice(0, Math.max(at, 0))} { ${kind} ${name.slice(at + 1)} {} }`;
    })
    .join('\n');
}

/**
 * Runs Compat::onRegistration in PHP as MediaWiki `version` after `declared` (braced namespace
 * blocks), then `report`, which echoes JSON.
 */
function phpCompat(declared, report, version = '1.39.17') {
  const script = `${declared}
namespace {
	define( 'MW_VERSION', ${JSON.stringify(version)} );
	require ${JSON.stringify(join(EXT, 'src/Compat.php'))};
	MediaWiki\\Extension\\Rigscope\\Compat::onRegistration();
	${report}
}`;
  return JSON.parse(execFileSync('php', ['-r', script], { encoding: 'utf8' }));
}

/** PHP that echoes, for each name, the class or interface it resolves to (null: none). */
function resolved(names) {
  return `$resolved = [];
	foreach ( ${JSON.stringify(names)} as $name ) {
		$found = class_exists( $name ) || interface_exists( $name );
		$resolved[$name] = $found ? ( new ReflectionClass( $name ) )->getName() : null;
	}
	echo json_encode( $resolved );`;
}

describe.skipIf(!hasPhp)('Compat (PHP): current MediaWiki class names on 1.39', () => {
  it('makes the current names aliases of the old ones where only the old ones exist (1.39), interfaces too', () => {
    expect(phpCompat(declare(NAMES_1_39), resolved(Object.keys(RENAMED)))).toEqual(RENAMED);
  });

  it('loads the hook handler and the media handler classes on 1.39: what they implement and extend resolves', () => {
    const src = (f) => `require ${JSON.stringify(join(EXT, 'src', f))};`;
    const report = `${src('Hooks.php')} ${src('RigscopeHandler.php')} ${src('RigscopeThumbnail.php')}
	$rigscope = 'MediaWiki\\\\Extension\\\\Rigscope\\\\';
	$implements = array_values( class_implements( $rigscope . 'Hooks' ) );
	sort( $implements );
	echo json_encode( [
		'Hooks' => $implements,
		'RigscopeHandler' => get_parent_class( $rigscope . 'RigscopeHandler' ),
		'RigscopeThumbnail' => get_parent_class( $rigscope . 'RigscopeThumbnail' ),
	] );`;
    expect(phpCompat(declare(NAMES_1_39), report)).toEqual({
      Hooks: [
        'MediaWiki\\Hook\\BeforePageDisplayHook',
        'MediaWiki\\Hook\\MimeMagicGuessFromContentHook',
        'MediaWiki\\Hook\\MimeMagicImproveFromExtensionHook',
        'MediaWiki\\Hook\\MimeMagicInitHook',
        'MediaWiki\\Hook\\ParserFirstCallInitHook',
        'MediaWiki\\Hook\\SoftwareInfoHook',
        'MediaWiki\\Hook\\UploadVerifyFileHook',
        'MediaWiki\\Page\\Hook\\ImageOpenShowImageInlineBeforeHook',
      ],
      RigscopeHandler: 'ImageHandler',
      RigscopeThumbnail: 'ThumbnailImage',
    });
  });

  it('leaves the current names alone where they are there (master: the old ones are their aliases)', () => {
    const kinds = Object.fromEntries(Object.entries(RENAMED).map(([current, old]) => [current, NAMES_1_39[old]]));
    const aliases = Object.entries(RENAMED)
      .map(([current, old]) => `class_alias( ${JSON.stringify(current)}, ${JSON.stringify(old)} );`)
      .join(' ');
    const names = Object.keys(RENAMED);
    expect(phpCompat(`${declare(kinds)} namespace { ${aliases} }`, resolved(names), '1.47.0-wmf.3')).toEqual(
      Object.fromEntries(names.map((name) => [name, name])),
    );
  });

  it('asks the autoloader for nothing on a release that has every current name (no class file loaded per request)', () => {
    const recorder = 'namespace { $asked = []; spl_autoload_register( function ( $name ) use ( &$asked ) { $asked[] = $name; } ); }';
    expect(phpCompat(recorder, 'echo json_encode( $asked );', '1.47.0-wmf.3')).toEqual([]);
    // On 1.39 the same registration asks for the current names it does not find.
    expect(phpCompat(recorder, 'echo json_encode( $asked );')).toEqual(expect.arrayContaining(Object.keys(RENAMED)));
  });
});
