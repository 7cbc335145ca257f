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
use MediaWiki\Shell\Shell;

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
	];

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
		// One record per file; a bundle gives one per file inside it: its first mesh's counts,
		// every clip, and the first error.
		$main = $records[0];
		foreach ( $records as $record ) {
			if ( isset( $record['counts']['triangles'] ) || isset( $record['counts']['vertices'] ) ) {
				$main = $record;
				break;
			}
		}
		foreach ( [ 'format', 'counts', 'info', 'pairedWith', 'boundTo' ] as $field ) {
			if ( isset( $main[$field] ) && $main[$field] !== [] ) {
				$facts[$field] = $main[$field];
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
						[ 'name' => 1, 'frames' => 1, 'fps' => 1, 'duration' => 1, 'loop' => 1 ] );
				}
			}
			foreach ( $record['warnings'] ?? [] as $w ) {
				$warnings[] = (string)$w;
			}
			if ( !empty( $record['error'] ) && !isset( $facts['error'] ) ) {
				$facts['error'] = (string)$record['error'];
			}
		}
		if ( $sequences ) {
			$facts['sequences'] = $sequences;
		}
		if ( $warnings ) {
			$facts['warnings'] = array_slice( $warnings, 0, 50 );
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
			return is_string( $text ) ? preg_replace( '#\S*/' . preg_quote( $seen, '#' ) . '#', $name,
				str_replace( " $seen", " $name", $text ) ) : $text;
		};
		if ( isset( $facts['error'] ) ) {
			$facts['error'] = $swap( $facts['error'] );
		}
		if ( isset( $facts['warnings'] ) ) {
			$facts['warnings'] = array_map( $swap, $facts['warnings'] );
		}
		return $facts;
	}

	/** The node binary, when the wiki runs the command line. */
	public static function node(): ?string {
		$node = MediaWikiServices::getInstance()->getMainConfig()->get( 'RigscopeNode' );
		if ( !$node || Shell::isDisabled() ) {
			return null;
		}
		if ( !is_file( self::cli() ) ) {
			// Copied rather than linked from a checkout, the folder needs $wgRigscopeCli.
			wfDebugLog( 'rigscope', 'no Rigscope command line at ' . self::cli() . ': set $wgRigscopeCli' );
			return null;
		}
		return (string)$node;
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
		if ( !$command || Shell::isDisabled() ) {
			return null;
		}
		if ( $command === true ) {
			$node = self::node() ?? 'node';
			return [ $node, self::cli(), 'poster' ];
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
		$dir = wfTempDir() . '/rigscope-' . bin2hex( random_bytes( 8 ) );
		if ( !@mkdir( $dir, 0700 ) ) {
			return null;
		}
		$copy = "$dir/$as";
		try {
			if ( !@symlink( $path, $copy ) && !@copy( $path, $copy ) ) {
				return null;
			}
			$result = Shell::command( $node, self::cli(), 'inspect', '--json', $copy )
				->limits( [ 'memory' => 0, 'time' => 120, 'walltime' => 120 ] )
				->execute();
			$records = json_decode( $result->getStdout(), true );
			if ( !is_array( $records ) || !isset( $records[0] ) || !is_array( $records[0] ) ) {
				wfDebugLog( 'rigscope', "inspect gave no record (exit {$result->getExitCode()}): "
					. substr( $result->getStderr() ?? '', 0, 500 ) );
				return null;
			}
			return array_values( array_filter( $records, 'is_array' ) );
		} finally {
			@unlink( $copy );
			@rmdir( $dir );
		}
	}

	/**
	 * What `rigscope inspect` says of a file read together with its companions (the mesh an
	 * animation binds to, the other half of a UE1 pair), kept for a week per set of contents.
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
		$stash = MediaWikiServices::getInstance()->getMainObjectStash();
		$files = array_merge( [ $file ], $companions );
		$key = $stash->makeKey( 'rigscope-together', 1, sha1( implode( '|', array_map( static function ( File $f ) {
			return $f->getName() . ':' . $f->getSha1();
		}, $files ) ) ) );
		$cached = $stash->get( $key );
		if ( is_array( $cached ) ) {
			return $cached ?: null;
		}
		$dir = wfTempDir() . '/rigscope-' . bin2hex( random_bytes( 8 ) );
		if ( !@mkdir( $dir, 0700 ) ) {
			return null;
		}
		$links = [];
		$record = [];
		$answer = null;
		try {
			foreach ( $files as $f ) {
				$path = $f->getLocalRefPath();
				$link = $dir . '/' . $f->getName();
				if ( $path && ( @symlink( $path, $link ) || @copy( $path, $link ) ) ) {
					$links[] = $link;
				}
			}
			$result = Shell::command( array_merge( [ $node, self::cli(), 'inspect', '--json' ], $links ) )
				->limits( [ 'memory' => 0, 'time' => 120, 'walltime' => 120 ] )
				->execute();
			$answer = json_decode( $result->getStdout(), true );
			foreach ( is_array( $answer ) ? $answer : [] as $r ) {
				if ( is_array( $r ) && basename( (string)( $r['file'] ?? '' ) ) === $file->getName() ) {
					$record = $r;
				}
			}
		} finally {
			foreach ( $links as $link ) {
				@unlink( $link );
			}
			@rmdir( $dir );
		}
		// A run that gave no answer (killed at its time limit, a crash) is not kept: the next view
		// asks again, where a week of "nothing known" would stand for it.
		if ( !is_array( $answer ) ) {
			wfDebugLog( 'rigscope', "inspect of {$file->getName()} with its companions gave no answer "
				. "(exit {$result->getExitCode()}): " . substr( $result->getStderr() ?? '', 0, 500 ) );
			return null;
		}
		// Paths become the wiki's names.
		array_walk_recursive( $record, static function ( &$v ) use ( $dir ) {
			if ( is_string( $v ) && str_starts_with( $v, "$dir/" ) ) {
				$v = substr( $v, strlen( $dir ) + 1 );
			}
		} );
		$stash->set( $key, $record, $stash::TTL_WEEK );
		return $record ?: null;
	}

	/**
	 * Draws a poster with `rigscope poster FILE... -o OUT.png --size WxH [--clip NAME] [--frame N]`.
	 *
	 * @param string[] $paths the model's files (the first, and its companions)
	 * @param string $out
	 * @param int $width
	 * @param int $height
	 * @param string|null $clip
	 * @param int|null $frame
	 * @return string|null null when drawn, else why not
	 */
	public static function poster( array $paths, string $out, int $width, int $height, ?string $clip, ?int $frame ): ?string {
		$command = self::posterCommand();
		if ( !$command ) {
			return 'no poster command';
		}
		// The command line pairs files by name: each is seen under its name on the wiki.
		$dir = wfTempDir() . '/rigscope-' . bin2hex( random_bytes( 8 ) );
		if ( !@mkdir( $dir, 0700 ) ) {
			return "cannot make $dir";
		}
		$links = [];
		try {
			foreach ( $paths as $path ) {
				$link = $dir . '/' . basename( $path );
				if ( @symlink( $path, $link ) || @copy( $path, $link ) ) {
					$links[] = $link;
				}
			}
			$args = array_merge( $command, $links, [ '-o', $out, '--size', "{$width}x{$height}" ] );
			// One word each, value joined: a clip name that starts with a dash stays a value.
			if ( $clip !== null && $clip !== '' ) {
				$args[] = "--clip=$clip";
			}
			if ( $frame !== null ) {
				$args[] = "--frame=$frame";
			}
			$result = Shell::command( $args )
				->limits( [ 'memory' => 0, 'time' => 180, 'walltime' => 180 ] )
				->execute();
			if ( $result->getExitCode() !== 0 || !is_file( $out ) || filesize( $out ) === 0 ) {
				$said = trim( $result->getStderr() ?? $result->getStdout() );
				return 'exit ' . $result->getExitCode() . ': ' . substr( $said, 0, 500 );
			}
			return null;
		} finally {
			foreach ( $links as $link ) {
				@unlink( $link );
			}
			@rmdir( $dir );
		}
	}
}
