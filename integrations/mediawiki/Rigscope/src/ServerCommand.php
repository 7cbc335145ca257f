<?php
/**
 * The command line run on the server, bounded: each run holds a slot of its kind (at most a few
 * at once on a server, and MediaWiki's PoolCounter across servers), runs under MediaWiki's shell
 * restrictions (no network; firejail's seccomp filter, private /dev and no LocalSettings.php where
 * firejail is installed), a limit on its memory and a wall clock whose end kills every process it
 * started, the headless browser of a poster included.
 *
 * Memory is limited as data (RLIMIT_DATA), not as address space: V8 reserves large address ranges
 * for WebAssembly, so MediaWiki's own limit (ulimit -v) stops node before it starts. Reserved,
 * untouched ranges do not count as data; what a process writes does.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\MediaWikiServices;
use MediaWiki\Shell\Shell;

class ServerCommand {

	/** `rigscope poster`: a headless Chromium draws one still (4–12 s on two busy cores). */
	public const POSTER = 'poster';
	/** `rigscope inspect`: every file of an upload read whole by the decoders. */
	public const INSPECT = 'inspect';

	/**
	 * A kind's limits: $wgRigscopeLimits' "poster" or "inspect" (slots: runs at once on a server;
	 * seconds: wall clock; memoryMb: data memory), each part defaulting to extension.json's.
	 *
	 * @param string $kind self::POSTER or self::INSPECT
	 * @return array pool, slots, seconds, memoryMb
	 */
	private static function limits( string $kind ): array {
		$defaults = [
			self::POSTER => [ 'slots' => 2, 'seconds' => 90, 'memoryMb' => 3072 ],
			self::INSPECT => [ 'slots' => 2, 'seconds' => 60, 'memoryMb' => 2048 ],
		][$kind];
		$set = MediaWikiServices::getInstance()->getMainConfig()->get( 'RigscopeLimits' )[$kind] ?? [];
		$limits = [ 'pool' => 'Rigscope' . ucfirst( $kind ) ];
		foreach ( $defaults as $name => $value ) {
			$limits[$name] = max( 1, (int)( $set[$name] ?? $value ) );
		}
		return $limits;
	}

	/** How long a run waits for a free slot before it gives up (the caller treats it as not run). */
	private const SLOT_WAIT_SECONDS = 30;

	/**
	 * Runs a command of the given kind.
	 *
	 * @param string $kind self::POSTER or self::INSPECT
	 * @param string $key what the run is about (PoolCounter lets one run per key at once)
	 * @param string[] $words the command and its arguments
	 * @param int $units how many pieces of work the run does (posters of a batch): its wall clock
	 *   grows by a sixth of the kind's for each one past the first
	 * @return array|null [ 'exit' => int, 'stdout' => string, 'stderr' => string ], or null when it
	 *   could not run (every slot busy, PoolCounter refused)
	 */
	public static function run( string $kind, string $key, array $words, int $units = 1 ): ?array {
		$kind = self::limits( $kind );
		$kind['seconds'] += intdiv( $kind['seconds'] * ( max( 1, $units ) - 1 ), 6 );
		$work = self::poolCounterClass();
		$run = new $work( $kind['pool'], sha1( $key ), [
			'doWork' => static function () use ( $kind, $words ) {
				return self::inSlot( $kind, static function () use ( $kind, $words ) {
					return self::execute( $kind, $words );
				} );
			},
			'error' => static function ( $status ) use ( $kind ) {
				wfDebugLog( 'rigscope', "{$kind['pool']}: PoolCounter refused the run: " . $status->getWikiText( false, false, 'en' ) );
				return null;
			},
		] );
		return $run->execute();
	}

	/** PoolCounterWorkViaCallback, under its name of the MediaWiki running (namespaced in 1.42). */
	private static function poolCounterClass(): string {
		return class_exists( 'MediaWiki\\PoolCounter\\PoolCounterWorkViaCallback' )
			? 'MediaWiki\\PoolCounter\\PoolCounterWorkViaCallback'
			: 'PoolCounterWorkViaCallback';
	}

	/**
	 * Runs $fn holding one of the kind's slots on this server (a lock file each), waiting up to
	 * SLOT_WAIT_SECONDS for one. PoolCounter bounds a farm once configured; the slots bound a
	 * server whatever the configuration.
	 *
	 * @param array $kind
	 * @param callable $fn
	 * @return mixed $fn's answer, or null when no slot came free
	 */
	private static function inSlot( array $kind, callable $fn ) {
		$end = microtime( true ) + self::SLOT_WAIT_SECONDS;
		do {
			for ( $i = 0; $i < $kind['slots']; $i++ ) {
				$lock = @fopen( wfTempDir() . "/rigscope-{$kind['pool']}-$i.lock", 'c' );
				if ( !$lock ) {
					continue;
				}
				if ( flock( $lock, LOCK_EX | LOCK_NB ) ) {
					try {
						return $fn();
					} finally {
						flock( $lock, LOCK_UN );
						fclose( $lock );
					}
				}
				fclose( $lock );
			}
			usleep( 200000 );
		} while ( microtime( true ) < $end );
		wfDebugLog( 'rigscope', "{$kind['pool']}: every slot busy for " . self::SLOT_WAIT_SECONDS . ' s: not run' );
		return null;
	}

	/**
	 * @param array $kind
	 * @param string[] $words
	 * @return array
	 */
	private static function execute( array $kind, array $words ): array {
		// Every process the command starts inherits this mark, even one that leaves the command's
		// process group (Playwright starts Chromium in a group of its own): at the end, any process
		// still carrying it is killed.
		$mark = bin2hex( random_bytes( 12 ) );
		$seconds = (int)$kind['seconds'];
		$wrapper = array_merge(
			[ '/bin/bash', dirname( __DIR__ ) . '/bin/bounded.sh', (string)$seconds, (string)( $kind['memoryMb'] * 1024 ) ],
			$words
		);
		$environment = [ 'RIGSCOPE_RUN' => $mark ];
		if ( self::inFirejail() ) {
			// Firejail's seccomp filter and user namespace stop Chromium's own sandbox from starting;
			// the run is in firejail's sandbox (no network, no root, seccomp, a private /dev) instead.
			$environment['RIGSCOPE_CHROMIUM_SANDBOX'] = '0';
		}
		try {
			$result = Shell::command( $wrapper )
				->environment( $environment )
				->restrict( Shell::RESTRICT_DEFAULT | Shell::NO_NETWORK )
				// The wrapper limits memory and wall time itself (see above); MediaWiki's limits are
				// the backstop: CPU time, a little more wall time than the wrapper's, and file size.
				->limits( [ 'memory' => 0, 'time' => 2 * $seconds, 'walltime' => $seconds + 15, 'filesize' => 256 * 1024 ] )
				->execute();
			return [
				'exit' => $result->getExitCode(),
				'stdout' => (string)$result->getStdout(),
				'stderr' => (string)$result->getStderr(),
			];
		} finally {
			self::killMarked( $mark );
		}
	}

	/**
	 * Kills every process of this user whose environment carries the run's mark (Linux /proc).
	 *
	 * @param string $mark
	 * @return int how many were killed
	 */
	public static function killMarked( string $mark ): int {
		$killed = 0;
		$needle = "RIGSCOPE_RUN=$mark\0";
		foreach ( glob( '/proc/[0-9]*', GLOB_ONLYDIR ) ?: [] as $dir ) {
			$environ = @file_get_contents( "$dir/environ" );
			if ( $environ !== false && str_contains( $environ . "\0", $needle ) ) {
				$pid = (int)basename( $dir );
				if ( $pid !== getmypid() && function_exists( 'posix_kill' ) && posix_kill( $pid, 9 ) ) {
					$killed++;
				}
			}
		}
		if ( $killed ) {
			wfDebugLog( 'rigscope', "killed $killed process(es) left by a command at its time limit" );
		}
		return $killed;
	}

	/** Whether MediaWiki runs commands in firejail ($wgShellRestrictionMethod, as its CommandFactory decides). */
	private static function inFirejail(): bool {
		$method = MediaWikiServices::getInstance()->getMainConfig()->get( 'ShellRestrictionMethod' );
		// 'autodetect' uses firejail where `firejail` is on the PATH (MediaWiki's ExecutableFinder).
		return $method === 'firejail' || ( $method === 'autodetect' && self::onPath( 'firejail' ) );
	}

	private static function onPath( string $program ): bool {
		foreach ( explode( PATH_SEPARATOR, (string)getenv( 'PATH' ) ?: '/usr/bin:/bin' ) as $dir ) {
			if ( $dir !== '' && is_executable( "$dir/$program" ) ) {
				return true;
			}
		}
		return false;
	}

	/** Whether MediaWiki may run commands at all (shell_exec disabled, $wgShellRestrictionMethod). */
	public static function available(): bool {
		return !Shell::isDisabled();
	}

	/** The main object stash, where failures are kept. */
	public static function stash() {
		return MediaWikiServices::getInstance()->getMainObjectStash();
	}
}
