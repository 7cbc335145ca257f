<?php
/**
 * Draws posters outside any parse or page view, then purges the pages that show the file so their
 * next view has the poster where the card stood. RigscopeHandler::doTransform queues one job per
 * missing poster; identical jobs are merged. The first job of a file to run draws every view of
 * that file asked for meanwhile (remembered in the object stash) in one run of the command line,
 * so a page of 40 frames of one model starts a browser once, not 40 times; the jobs after find
 * their poster drawn.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use HTMLCacheUpdateJob;
use Job;
use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;

class PosterJob extends Job {

	/** Views of one file remembered for batches at most (each still has its own job). */
	private const MAX_PENDING = 400;

	/**
	 * @param \MediaWiki\Title\Title $title the file's title
	 * @param array $params params (width, clip, frame) and with (the tag's other files' names)
	 */
	public function __construct( $title, array $params ) {
		parent::__construct( 'rigscopePoster', $title, $params );
		$this->removeDuplicates = true;
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
		$stash = ServerCommand::stash();
		$taken = [];
		$stash->merge( self::pendingKey( $file, $with ), static function ( $cache, $key, $pending ) use ( &$taken ) {
			$pending = is_array( $pending ) ? $pending : [];
			$taken = array_slice( $pending, 0, RigscopeHandler::BATCH );
			return array_slice( $pending, RigscopeHandler::BATCH );
		}, $stash::TTL_DAY );
		$views = array_merge( isset( $own['width'] ) ? [ $own ] : [], $taken );
		if ( RigscopeHandler::drawNow( $file, $views, $with ) > 0 ) {
			// Pages that use the file (thumbnails, tags: all registered as file links) and the file
			// page are rendered again at their next view, with the posters.
			$services->getJobQueueGroup()->lazyPush(
				HTMLCacheUpdateJob::newForBacklinks( $file->getTitle(), 'imagelinks', [ 'causeAction' => 'rigscope-poster' ] )
			);
			$file->getTitle()->invalidateCache();
		}
		return true;
	}
}
