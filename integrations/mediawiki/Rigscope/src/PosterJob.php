<?php
/**
 * Draws one poster outside any parse or page view, then purges the pages that show the file so
 * their next view has the poster where the card stood. Queued by RigscopeHandler::doTransform
 * when a thumbnail's poster is missing; identical jobs are merged.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use HTMLCacheUpdateJob;
use Job;
use MediaWiki\MediaWikiServices;

class PosterJob extends Job {

	/**
	 * @param \MediaWiki\Title\Title $title the file's title
	 * @param array $params params (width, clip, frame) and with (the tag's other files' names)
	 */
	public function __construct( $title, array $params ) {
		parent::__construct( 'rigscopePoster', $title, $params );
		$this->removeDuplicates = true;
	}

	/** @inheritDoc */
	public function run() {
		$services = MediaWikiServices::getInstance();
		$file = $services->getRepoGroup()->getLocalRepo()->newFile( $this->getTitle() );
		if ( !$file || !$file->exists() || !RigscopeHandler::isModel( $file ) ) {
			// Deleted or replaced by another kind of file since: nothing to draw.
			return true;
		}
		$params = array_intersect_key( (array)( $this->params['params'] ?? [] ), [ 'width' => 1, 'clip' => 1, 'frame' => 1 ] );
		$with = array_values( array_filter( (array)( $this->params['with'] ?? [] ), 'is_string' ) );
		if ( !isset( $params['width'] ) ) {
			return true;
		}
		$thumb = RigscopeHandler::drawNow( $file, $params, $with );
		if ( $thumb && !$thumb->isError() && $thumb->getUrl() ) {
			// Pages that use the file (thumbnails, tags: all registered as file links) and the file
			// page are rendered again at their next view, with the poster.
			$services->getJobQueueGroup()->lazyPush(
				HTMLCacheUpdateJob::newForBacklinks( $file->getTitle(), 'imagelinks', [ 'causeAction' => 'rigscope-poster' ] )
			);
			$file->getTitle()->invalidateCache();
		}
		return true;
	}
}
