<?php
/**
 * Draws posters outside any parse or page view, then purges the pages that show the file so their
 * next view has the poster where the card stood. RigscopeHandler::doTransform queues one job per
 * missing poster; identical jobs are merged. The first job of a file to run draws every view of
 * that file asked for meanwhile (remembered in the object stash) in one run of the command line,
 * so a page of 40 frames of one model starts a browser once, not 40 times; the jobs after find
 * their poster drawn. Room left in its batch goes to views of other files waiting (a page of
 * seven models starts a browser once, not seven times); a view of theirs the run did not draw is
 * left to its own job.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use HTMLCacheUpdateJob;
use Job;
use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;
use MediaWiki\Title\Title;

class PosterJob extends Job {

	/** Views of one file remembered for batches at most (each still has its own job). */
	private const MAX_PENDING = 400;

	/** Sets of files (a file and the tag's other files) with views remembered, listed at most. */
	private const MAX_SETS = 100;

	/**
	 * @param \MediaWiki\Title\Title $title the file's title
	 * @param array $params params (width, clip, frame) and with (the tag's other files' names)
	 */
	public function __construct( $title, array $params ) {
		parent::__construct( 'rigscopePoster', $title, $params );
		$this->removeDuplicates = true;
		// No transaction round around run(): a poster run takes a browser seconds to minutes, and a
		// transaction held open over it (a read starts one) would hold its locks that long (on
		// SQLite, every other writer is locked out). Each write here commits on its own.
		$this->executionFlags |= self::JOB_NO_EXPLICIT_TRX_ROUND;
	}

	/**
	 * Remembers a view of a file whose poster is wanted, for the batch of the file's next job.
	 *
	 * @param File $file
	 * @param string[] $with
	 * @param array $view width, clip, frame
	 */
	public static function remember( File $file, array $with, array $view ): void {
		$stash = ServerCommand::stash();
		$stash->merge( self::pendingKey( $file, $with ), static function ( $cache, $key, $pending ) use ( $view ) {
			$pending = is_array( $pending ) ? $pending : [];
			if ( count( $pending ) < self::MAX_PENDING && !in_array( $view, $pending, true ) ) {
				$pending[] = $view;
			}
			return $pending;
		}, $stash::TTL_DAY );
		$set = [ $file->getName(), array_values( $with ) ];
		$stash->merge( self::setsKey(), static function ( $cache, $key, $sets ) use ( $set ) {
			$sets = is_array( $sets ) ? $sets : [];
			if ( count( $sets ) < self::MAX_SETS && !in_array( $set, $sets, true ) ) {
				$sets[] = $set;
			}
			return $sets;
		}, $stash::TTL_DAY );
	}

	/** The stash key of the list of sets of files with views waiting ([ file name, with ] each). */
	private static function setsKey(): string {
		return ServerCommand::stash()->makeKey( 'rigscope-poster-pending-sets' );
	}

	/** The stash key of a file's views waiting for a poster (per set of files drawn with it). */
	private static function pendingKey( File $file, array $with ): string {
		return ServerCommand::stash()->makeKey( 'rigscope-poster-pending', sha1( $file->getName() . '|' . implode( '|', $with ) ) );
	}

	/** @inheritDoc */
	public function run() {
		$services = MediaWikiServices::getInstance();
		$file = $services->getRepoGroup()->getLocalRepo()->newFile( $this->getTitle() );
		if ( !$file || !$file->exists() || !RigscopeHandler::isModel( $file ) ) {
			// Deleted or replaced by another kind of file since: nothing to draw.
			return true;
		}
		$with = array_values( array_filter( (array)( $this->params['with'] ?? [] ), 'is_string' ) );
		$own = array_intersect_key( (array)( $this->params['params'] ?? [] ), [ 'width' => 1, 'clip' => 1, 'frame' => 1 ] );
		// This job's view and a batch of the others waiting; the rest wait for the next job. A view
		// that two jobs race for is drawn once (the second finds it), one lost from the list is
		// drawn by its own job.
		[ $taken, $left ] = self::take( $file, $with, RigscopeHandler::BATCH );
		$views = array_merge( isset( $own['width'] ) ? [ $own ] : [], $taken );
		$sets = array_merge( [ [ 'file' => $file, 'views' => $views, 'with' => $with ] ],
			self::others( $file, $with, $left, RigscopeHandler::BATCH - count( $taken ) ) );
		foreach ( RigscopeHandler::drawNow( $sets ) as $drawn ) {
			// Pages that use the file (thumbnails, tags: all registered as file links) and the file
			// page are rendered again at their next view, with the posters.
			$services->getJobQueueGroup()->lazyPush(
				HTMLCacheUpdateJob::newForBacklinks( $drawn->getTitle(), 'imagelinks', [ 'causeAction' => 'rigscope-poster' ] )
			);
			$drawn->getTitle()->invalidateCache();
		}
		return true;
	}

	/**
	 * Takes up to $n views of a set of files from those waiting.
	 *
	 * @param File $file
	 * @param string[] $with
	 * @param int $n
	 * @return array [ the views taken, how many still wait ]
	 */
	private static function take( File $file, array $with, int $n ): array {
		$stash = ServerCommand::stash();
		$taken = [];
		$left = 0;
		if ( !$stash->get( self::pendingKey( $file, $with ) ) ) {
			// Nothing waits: no write (a job looks through up to MAX_SETS sets).
			return [ $taken, $left ];
		}
		$stash->merge( self::pendingKey( $file, $with ), static function ( $cache, $key, $pending ) use ( $n, &$taken, &$left ) {
			$pending = is_array( $pending ) ? $pending : [];
			$taken = array_slice( $pending, 0, max( 0, $n ) );
			$rest = array_slice( $pending, max( 0, $n ) );
			$left = count( $rest );
			return $rest;
		}, $stash::TTL_DAY );
		return [ $taken, $left ];
	}

	/**
	 * Views of other sets of files waiting, up to $room of them, for the same run; sets with none
	 * left (and this job's own, when it has none left) leave the list.
	 *
	 * @param File $file this job's file
	 * @param string[] $with this job's other files
	 * @param int $ownLeft how many of this job's own set still wait
	 * @param int $room
	 * @return array[] each [ 'file' => File, 'views' => array[], 'with' => string[] ]
	 */
	private static function others( File $file, array $with, int $ownLeft, int $room ): array {
		$stash = ServerCommand::stash();
		$ownSet = [ $file->getName(), array_values( $with ) ];
		$listed = $stash->get( self::setsKey() );
		$done = $ownLeft === 0 ? [ $ownSet ] : [];
		$others = [];
		$repo = MediaWikiServices::getInstance()->getRepoGroup()->getLocalRepo();
		foreach ( is_array( $listed ) ? $listed : [] as $set ) {
			if ( $room <= 0 ) {
				break;
			}
			if ( !is_array( $set ) || !is_string( $set[0] ?? null ) || !is_array( $set[1] ?? null ) || $set === $ownSet ) {
				continue;
			}
			$title = Title::makeTitleSafe( NS_FILE, $set[0] );
			$other = $title ? $repo->newFile( $title ) : null;
			if ( !$other || !$other->exists() || !RigscopeHandler::isModel( $other ) ) {
				$done[] = $set;
				continue;
			}
			$setWith = array_values( array_filter( $set[1], 'is_string' ) );
			[ $views, $left ] = self::take( $other, $setWith, $room );
			if ( $views ) {
				$others[] = [ 'file' => $other, 'views' => $views, 'with' => $setWith ];
				$room -= count( $views );
			}
			if ( $left === 0 ) {
				$done[] = $set;
			}
		}
		if ( $done ) {
			$stash->merge( self::setsKey(), static function ( $cache, $key, $sets ) use ( $done ) {
				return array_values( array_filter( is_array( $sets ) ? $sets : [], static function ( $set ) use ( $done ) {
					return !in_array( $set, $done, true );
				} ) );
			}, $stash::TTL_DAY );
		}
		return $others;
	}
}
