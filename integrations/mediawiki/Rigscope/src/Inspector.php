<?php
/**
 * The Rigscope command line, run on the server: `rigscope inspect --json` reads a whole file with
 * the same decoders as the viewer (when $wgRigscopeNode is set), and `rigscope poster` draws a
 * thumbnail (when $wgRigscopePosterCommand is set). The extension itself knows no format beyond
 * the header checks of ModelFileCheck.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;


class Inspector {

	/** The name a file is given for the command line, by kind (the decoders pair UE1 halves by name). */
	private const NAMES = [
		'bundle' => 'model.rigscope',
		'psk' => 'model.psk',
		'psa' => 'model.psa',
		'pmd' => 'model.pmd',
		'pssa' => 'model.psa',
		'psg' => 'model.psg',
		'ue1-data' => 'model_d.3d',
		'ue1-anim' => 'model_a.3d',
		'uc' => 'model.uc',
		// A package's objects are named after the file (`package.Group.Name`): PackageFacts keeps
		// none of those paths.
		'upackage' => 'package.u',
	];

	/** At most this many sequences and warnings are kept in a file's metadata (the count is kept too). */
	public const MAX_SEQUENCES = 1000;
	public const MAX_WARNINGS = 50;
	/** A list or map in a record (pairings, info) keeps at most this many entries. */
	private const MAX_ENTRIES = 100;

	/** How long a run that failed is remembered (an inspect that timed out is not run on every view). */
	private const FAILURE_TTL = 3600;

	/** Facts of files read in this request, by path, size and time: an upload reads them three times. */
	private static $cache = [];

	/**
	 * What a file is: its kind and header (ModelFileCheck), and with $wgRigscopeNode set, the
	 * decoders' record (`rigscope inspect --json`): format, counts, sequences, warnings, error.
	 *
	 * @param string $path
	 * @param string $name the file's name, when known (messages name it)
	 * @return array
	 */
	public static function facts( string $path, string $name = '' ): array {
		$key = $path . '|' . @filesize( $path ) . '|' . @filemtime( $path );
		if ( !isset( self::$cache[$key] ) ) {
			self::$cache[$key] = self::read( $path );
		}
		$facts = self::$cache[$key];
		if ( $name !== '' ) {
			// Messages name the file as the wiki does, not as the command line saw it.
			$facts = self::renamed( $facts, $name );
		}
		return $facts;
	}

	private static function read( string $path ): array {
		$kind = ModelFileCheck::detect( $path );
		// UE1 halves are known by their size arithmetic alone.
		$facts = [ 'kind' => $kind ];
		if ( $kind === null ) {
			return $facts;
		}
		$check = ModelFileCheck::check( $path, self::NAMES[$kind] );
		$facts['header'] = $check['header'];
		if ( $kind === 'bundle' ) {
			// The names inside (the first 200: metadata stays small) and the view state it opens with.
			$files = $check['header']['files'] ?? [];
			$facts['header'] = [ 'files' => count( $files ) ];
			$facts['files'] = array_slice( $files, 0, 200 );
			$facts['state'] = array_intersect_key( $check['header']['state'] ?? [], [ 'clip' => 1, 'frame' => 1 ] );
			$facts['format'] = 'bundle';
		}
		$records = self::inspect( $path, self::NAMES[$kind] );
		if ( $records === null ) {
			return $facts;
		}
		if ( !$records ) {
			// Read, and nothing to say of it alone.
			$facts['inspected'] = true;
			return $facts;
		}
		if ( $kind === 'upackage' ) {
			$facts = PackageFacts::fromRecord( $records[0] ) + $facts;
		}
		// One record per file; a bundle gives one per file inside it: its first mesh's counts,
		// every clip, and the first error.
		$main = $records[0];
		foreach ( $records as $record ) {
			if ( isset( $record['counts']['triangles'] ) || isset( $record['counts']['vertices'] ) ) {
				$main = $record;
				break;
			}
		}
		foreach ( [ 'format', 'counts', 'info', 'pairedWith', 'boundTo', 'bindKey' ] as $field ) {
			if ( isset( $main[$field] ) && $main[$field] !== [] ) {
				$facts[$field] = self::capped( $main[$field] );
			}
		}
		if ( $kind === 'bundle' ) {
			$facts['format'] = 'bundle';
		}
		$sequences = [];
		$warnings = [];
		foreach ( $records as $record ) {
			foreach ( $record['sequences'] ?? [] as $s ) {
				if ( is_array( $s ) ) {
					$sequences[] = array_intersect_key( $s,
						[ 'name' => 1, 'frames' => 1, 'fps' => 1, 'duration' => 1, 'loop' => 1, 'startFrame' => 1 ] );
				}
			}
			foreach ( $record['warnings'] ?? [] as $w ) {
				$warnings[] = (string)$w;
			}
			if ( !empty( $record['error'] ) && !isset( $facts['error'] ) ) {
				$facts['error'] = (string)$record['error'];
			}
		}
		// Metadata stays small whatever the file holds: lists are cut, their full length kept.
		if ( $sequences ) {
			$facts['sequences'] = array_slice( $sequences, 0, self::MAX_SEQUENCES );
			$facts['sequenceCount'] = count( $sequences );
		}
		if ( $warnings ) {
			$facts['warnings'] = array_slice( $warnings, 0, self::MAX_WARNINGS );
			$facts['warningCount'] = count( $warnings );
		}
		$facts['inspected'] = true;
		return $facts;
	}

	/** Facts whose messages name `$name` instead of the command line's copy. */
	private static function renamed( array $facts, string $name ): array {
		$kind = $facts['kind'] ?? null;
		$seen = $kind ? self::NAMES[$kind] : null;
		if ( $seen === null ) {
			return $facts;
		}
		$swap = static function ( $text ) use ( $seen, $name ) {
			// A callback, so a `$1` or `\\1` in the wiki's name is text, not a back reference.
			return is_string( $text ) ? preg_replace_callback( '#\S*/' . preg_quote( $seen, '#' ) . '#',
				static function () use ( $name ) {
					return $name;
				}, str_replace( " $seen", " $name", $text ) ) : $text;
		};
		if ( isset( $facts['error'] ) ) {
			$facts['error'] = $swap( $facts['error'] );
		}
		if ( isset( $facts['warnings'] ) ) {
			$facts['warnings'] = array_map( $swap, $facts['warnings'] );
		}
		return $facts;
	}

	/** A record's list or map cut to MAX_ENTRIES entries (nested ones too). */
	private static function capped( $value ) {
		if ( !is_array( $value ) ) {
			return $value;
		}
		return array_map( [ self::class, 'capped' ], array_slice( $value, 0, self::MAX_ENTRIES, true ) );
	}

	/** The node binary, when the wiki runs the command line. */
	public static function node(): ?string {
		$node = MediaWikiServices::getInstance()->getMainConfig()->get( 'RigscopeNode' );
		if ( !$node || !ServerCommand::available() ) {
			return null;
		}
		if ( !is_file( self::cli() ) ) {
			// Copied rather than linked from a checkout, the folder needs $wgRigscopeCli: said in the
			// log and on Special:Version (Hooks::onSoftwareInfo).
			wfDebugLog( 'rigscope', self::cliProblem() );
			return null;
		}
		return (string)$node;
	}

	/**
	 * What stops the wiki from running the command line although it is asked to, in a sentence for
	 * administrators; null when nothing does (or when it is not asked to).
	 */
	public static function cliProblem(): ?string {
		$config = MediaWikiServices::getInstance()->getMainConfig();
		if ( !$config->get( 'RigscopeNode' ) && $config->get( 'RigscopePosterCommand' ) !== true ) {
			return null;
		}
		if ( !ServerCommand::available() ) {
			return 'Rigscope: MediaWiki may not run commands here (shell_exec is disabled), so uploads are '
				. 'checked by their headers only and thumbnails are cards.';
		}
		if ( !is_file( self::cli() ) ) {
			return 'Rigscope: no command line at ' . self::cli() . ': set $wgRigscopeCli to the path of '
				. 'web/cli/rigscope.js in a Rigscope checkout (a copied extension folder cannot find it), '
				. 'then run maintenance/refreshImageMetadata.php --force --mime "model/*" to read the files '
				. 'uploaded meanwhile.';
		}
		return null;
	}

	/** The command line script: a setting, else the repository's web/cli/rigscope.js beside this folder. */
	public static function cli(): string {
		$cli = MediaWikiServices::getInstance()->getMainConfig()->get( 'RigscopeCli' );
		return $cli ? (string)$cli : dirname( __DIR__, 4 ) . '/web/cli/rigscope.js';
	}

	/**
	 * @return string[]|null the poster command's words, before its arguments
	 */
	public static function posterCommand(): ?array {
		$command = MediaWikiServices::getInstance()->getMainConfig()->get( 'RigscopePosterCommand' );
		if ( !$command || !ServerCommand::available() ) {
			return null;
		}
		if ( $command === true ) {
			$node = self::node();
			return $node === null ? null : [ $node, self::cli(), 'poster' ];
		}
		return (array)$command;
	}

	/**
	 * `rigscope inspect --json` on one file, copied under a name of its kind.
	 *
	 * @param string $path
	 * @param string $as the name the command line sees
	 * @return array[]|null its records (a bundle has one per file inside), or null without
	 *   $wgRigscopeNode or when it did not run
	 */
	public static function inspect( string $path, string $as ): ?array {
		$node = self::node();
		if ( $node === null ) {
			return null;
		}
		$sha1 = @sha1_file( $path ) ?: '';
		$answer = self::remembered( 'inspect', [ $sha1, $as ], static function ( string $dir ) use ( $node, $path, $as ) {
			$copy = self::copyInto( $dir, $as, $path );
			return $copy === null ? null : ServerCommand::run( ServerCommand::INSPECT, "inspect:$as",
				[ $node, self::cli(), 'inspect', '--json', $copy ] );
		} );
		$records = $answer === null ? null : json_decode( $answer['stdout'], true );
		if ( !is_array( $records ) ) {
			return null;
		}
		return array_values( array_filter( $records, 'is_array' ) );
	}

	/**
	 * What `rigscope inspect` says of a file read together with its companions (the mesh an
	 * animation binds to, the other half of a UE1 pair), kept for a week per set of contents.
	 * Its `clips` are the clips of every file of the set (name, frames, startFrame): what a
	 * thumbnail's `clip=` and `frame=` are checked against.
	 *
	 * @param File $file
	 * @param File[] $companions
	 * @return array|null the file's record, with its paths as the wiki's names
	 */
	public static function together( File $file, array $companions ): ?array {
		$node = self::node();
		if ( $node === null || !$companions ) {
			return null;
		}
		$files = array_merge( [ $file ], $companions );
		$id = array_map( static function ( File $f ) {
			return $f->getName() . ':' . $f->getSha1();
		}, $files );
		$stash = ServerCommand::stash();
		$key = $stash->makeKey( 'rigscope-together', 2, sha1( implode( '|', $id ) ) );
		if ( isset( self::$together[$key] ) ) {
			return self::$together[$key] ?: null;
		}
		$cached = $stash->get( $key );
		if ( is_array( $cached ) ) {
			return ( self::$together[$key] = $cached ) ?: null;
		}
		$answer = self::remembered( 'together', $id, static function ( string $dir ) use ( $node, $files ) {
			$copies = [];
			foreach ( $files as $f ) {
				$path = $f->getLocalRefPath();
				$copy = $path ? self::copyInto( $dir, $f->getName(), $path ) : null;
				if ( $copy !== null ) {
					$copies[] = $copy;
				}
			}
			return ServerCommand::run( ServerCommand::INSPECT, 'together:' . $files[0]->getName(),
				array_merge( [ $node, self::cli(), 'inspect', '--json' ], $copies ) );
		} );
		$records = $answer === null ? null : json_decode( $answer['stdout'], true );
		if ( !is_array( $records ) ) {
			// Not kept for a week: remembered() keeps the failure for an hour, then it is tried again.
			return null;
		}
		$record = [];
		$clips = [];
		foreach ( $records as $r ) {
			if ( !is_array( $r ) ) {
				continue;
			}
			if ( basename( (string)( $r['file'] ?? '' ) ) === $file->getName() ) {
				$record = $r;
			}
			foreach ( $r['sequences'] ?? [] as $s ) {
				if ( is_array( $s ) && isset( $s['name'] ) && count( $clips ) < self::MAX_SEQUENCES ) {
					$clips[] = array_intersect_key( $s, [ 'name' => 1, 'frames' => 1, 'fps' => 1, 'startFrame' => 1 ] );
				}
			}
		}
		$record = self::capped( array_diff_key( $record, [ 'sequences' => 1, 'warnings' => 1 ] ) )
			+ array_intersect_key( $record, [ 'sequences' => 1, 'warnings' => 1 ] );
		if ( isset( $record['sequences'] ) ) {
			$record['sequences'] = array_slice( (array)$record['sequences'], 0, self::MAX_SEQUENCES );
		}
		if ( isset( $record['warnings'] ) ) {
			$record['warnings'] = array_slice( (array)$record['warnings'], 0, self::MAX_WARNINGS );
		}
		// Paths become the wiki's names.
		array_walk_recursive( $record, static function ( &$v ) {
			if ( is_string( $v ) && preg_match( '#/rigscope-[0-9a-f]{16}/#', $v ) ) {
				$v = preg_replace( '#\S*/rigscope-[0-9a-f]{16}/#', '', $v );
			}
		} );
		if ( $record || $clips ) {
			$record['clips'] = $clips;
		}
		$stash->set( $key, $record, $stash::TTL_WEEK );
		self::$together[$key] = $record;
		return $record ?: null;
	}

	/** Answers of together() in this request, by key. */
	private static $together = [];

	/**
	 * Draws posters of one or more sets of files in one run of `rigscope poster` (Chromium starts
	 * once): the first set's first poster with `-o`, the others through `--more` (another set's
	 * with its own files, copied into a folder of their own: the command line pairs files by
	 * name). A poster drawn without some of the files (an animation that fits no mesh: exit 1) is
	 * kept; what was left out is logged.
	 *
	 * @param array[] $sets each [ 'paths' => the files (the wiki's name => a local path),
	 *   'posters' => each [ out, width, height, clip (or null), frame (the file's own frame
	 *   number, or null), mesh (of a package, or null) ]; out is a path in $dir ]
	 * @param string $dir a folder of ours (tempDir) for the copies and the list
	 * @return string[] the outs drawn; what was not is logged
	 */
	public static function posters( array $sets, string $dir ): array {
		$command = self::posterCommand();
		$sets = array_values( array_filter( $sets, static function ( array $set ) {
			return $set['paths'] && $set['posters'];
		} ) );
		if ( !$command || !$sets ) {
			return [];
		}
		$all = [];
		$names = [];
		$own = [];
		foreach ( $sets as $i => $set ) {
			$into = $i === 0 ? $dir : "$dir/set-$i";
			if ( $i > 0 && !@mkdir( $into, 0700 ) ) {
				wfDebugLog( 'rigscope', "posters not drawn: cannot make $into" );
				return [];
			}
			$copies = self::copySet( $into, $set['paths'] );
			if ( $copies === null ) {
				return [];
			}
			foreach ( $set['posters'] as $p ) {
				$all[] = $i === 0 ? $p : $p + [ 'files' => $copies ];
			}
			$names = array_merge( $names, array_keys( $set['paths'] ), [ '' ] );
			$own = $own ?: $copies;
		}
		$first = array_shift( $all );
		$args = array_merge( $command, $own, [ '-o', $first['out'], '--size', "{$first['width']}x{$first['height']}" ] );
		// One word each, value joined: a clip name that starts with a dash stays a value.
		if ( $first['clip'] !== null && $first['clip'] !== '' ) {
			$args[] = '--clip=' . $first['clip'];
		}
		if ( $first['frame'] !== null ) {
			$args[] = '--frame=' . (int)$first['frame'];
		}
		if ( ( $first['mesh'] ?? null ) !== null ) {
			$args[] = '--mesh=' . $first['mesh'];
		}
		if ( $all ) {
			$more = "$dir/more.json";
			$list = array_map( static function ( array $p ) {
				return array_filter( [ 'out' => $p['out'], 'width' => (int)$p['width'], 'height' => (int)$p['height'],
					'clip' => $p['clip'], 'frame' => $p['frame'] === null ? null : (int)$p['frame'],
					'mesh' => $p['mesh'] ?? null, 'files' => $p['files'] ?? null ], static function ( $v ) {
						return $v !== null && $v !== '';
					} );
			}, $all );
			if ( file_put_contents( $more, json_encode( $list ) ) === false ) {
				return [];
			}
			$args[] = "--more=$more";
		}
		$result = ServerCommand::run( ServerCommand::POSTER, 'poster:' . implode( '|', $names ), $args, 1 + count( $all ) );
		$drawn = [];
		foreach ( array_merge( [ $first ], $all ) as $p ) {
			if ( is_file( $p['out'] ) && filesize( $p['out'] ) > 0 ) {
				$drawn[] = $p['out'];
			}
		}
		if ( $result === null ) {
			wfDebugLog( 'rigscope', 'posters not drawn: every poster slot is busy' );
		} elseif ( $result['exit'] !== 0 ) {
			$said = substr( trim( $result['stderr'] !== '' ? $result['stderr'] : $result['stdout'] ), 0, 1000 );
			wfDebugLog( 'rigscope', ( $drawn && $result['exit'] === 1
				? 'poster drawn without some files, or some posters not drawn: '
				: "posters not drawn (exit {$result['exit']}): " ) . $said );
		}
		return $drawn;
	}

	/**
	 * Copies one set of a poster run's files into a folder of ours.
	 *
	 * @param string $dir
	 * @param string[] $paths the wiki's name => a local path
	 * @return string[]|null the copies, or null when one could not be made (logged)
	 */
	private static function copySet( string $dir, array $paths ): ?array {
		$copies = [];
		foreach ( $paths as $name => $path ) {
			$copy = self::copyInto( $dir, (string)$name, $path );
			if ( $copy === null ) {
				wfDebugLog( 'rigscope', "posters not drawn: cannot copy $name" );
				return null;
			}
			$copies[] = $copy;
		}
		return $copies;
	}

	/**
	 * Runs $run in a fresh temporary folder, unless the same run (by kind and the contents it
	 * reads) failed within FAILURE_TTL: a file page is not made to wait for an inspect that timed
	 * out on every view. A run that gives no answer, or no JSON, is remembered as failed.
	 *
	 * @param string $kind
	 * @param string[] $id what the run reads (names and hashes)
	 * @param callable $run function ( string $dir ): ?array (ServerCommand::run's answer)
	 * @return array|null the answer, or null when it failed now or recently
	 */
	private static function remembered( string $kind, array $id, callable $run ): ?array {
		$stash = ServerCommand::stash();
		// The command line's own file is part of the key: fixing $wgRigscopeCli tries again at once.
		$key = $stash->makeKey( 'rigscope-failed', $kind, sha1( implode( '|', $id ) . '|' . self::cli() . '|' . @filemtime( self::cli() ) ) );
		if ( $stash->get( $key ) ) {
			return null;
		}
		$dir = self::tempDir();
		if ( $dir === null ) {
			return null;
		}
		try {
			$answer = $run( $dir );
		} finally {
			self::removeDir( $dir );
		}
		if ( $answer === null || !is_array( json_decode( $answer['stdout'], true ) ) ) {
			wfDebugLog( 'rigscope', "$kind gave no answer" . ( $answer ? " (exit {$answer['exit']}): "
				. substr( $answer['stderr'], 0, 500 ) : '' ) );
			$stash->set( $key, 1, self::FAILURE_TTL );
			return null;
		}
		return $answer;
	}

	/** A new folder of our own in the temporary directory, or null. */
	public static function tempDir(): ?string {
		$dir = wfTempDir() . '/rigscope-' . bin2hex( random_bytes( 8 ) );
		return @mkdir( $dir, 0700 ) ? $dir : null;
	}

	/**
	 * Copies a file into our folder under a name, created exclusively (never through a link an
	 * attacker could have placed, never over another file).
	 *
	 * @param string $dir
	 * @param string $name the wiki's name of the file (no slash: a title cannot hold one)
	 * @param string $path
	 * @return string|null the copy's path
	 */
	private static function copyInto( string $dir, string $name, string $path ): ?string {
		if ( $name === '' || str_contains( $name, '/' ) || $name === '.' || $name === '..' ) {
			return null;
		}
		$copy = "$dir/$name";
		$from = @fopen( $path, 'rb' );
		$to = $from ? @fopen( $copy, 'xb' ) : false;
		$ok = $from && $to && stream_copy_to_stream( $from, $to ) !== false;
		if ( $from ) {
			fclose( $from );
		}
		if ( $to ) {
			fclose( $to );
		}
		return $ok ? $copy : null;
	}

	/** Removes our temporary folder and the copies in it (a poster run's other sets in folders of their own). */
	public static function removeDir( string $dir ): void {
		foreach ( @scandir( $dir ) ?: [] as $f ) {
			if ( $f === '.' || $f === '..' ) {
				continue;
			}
			if ( is_dir( "$dir/$f" ) && !is_link( "$dir/$f" ) ) {
				self::removeDir( "$dir/$f" );
			} else {
				@unlink( "$dir/$f" );
			}
		}
		@rmdir( $dir );
	}
}
