<?php
/**
 * Model files as media: size and facts on upload, a poster (or a card) as the thumbnail, and the
 * `clip` and `frame` parameters of `[[File:Grunt.psk|clip=Walk|frame=12]]`.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Media\ImageHandler;
use MediaWiki\Media\MediaTransformError;
use MediaWiki\Media\TransformParameterError;
use MediaWiki\MediaWikiServices;
use MediaWiki\Parser\Parser;
use MediaWiki\Title\Title;

class RigscopeHandler extends ImageHandler {

	/** The size a model is described with: posters keep this shape (4:3) at any width. */
	public const WIDTH = 640;
	public const HEIGHT = 480;

	/** Metadata layout version: facts stored under an older one are read again. */
	private const METADATA_VERSION = 1;

	/** @inheritDoc */
	public function isEnabled() {
		return true;
	}

	/** @inheritDoc */
	public function mustRender( $file ) {
		return true;
	}

	/**
	 * A model is not a picture that scales: it has a poster of its stored size (640 x 480) and one
	 * twice as large, no more. Vectorized, MediaWiki's file page offered "other resolutions" up to
	 * $wgSVGMaxSize (2,560 x 1,920 pixels) that were a 1,280 x 960 poster; not vectorized, the
	 * page shows the player at the stored size and offers no larger one.
	 *
	 * @inheritDoc
	 */
	public function isVectorized( $file ) {
		return false;
	}

	/**
	 * Posters are drawn in two sizes only, 640 and 1280 pixels wide, and scaled by the browser: a
	 * poster takes a headless browser some seconds, so a page's thumbnails, their 1.5x and 2x
	 * versions, the file page and its OpenGraph image share one per clip and frame.
	 *
	 * @inheritDoc
	 */
	public function normaliseParams( $image, &$params ) {
		if ( !parent::normaliseParams( $image, $params ) ) {
			return false;
		}
		$params['physicalWidth'] = $params['physicalWidth'] <= self::WIDTH ? self::WIDTH : 2 * self::WIDTH;
		$params['physicalHeight'] = (int)round( $params['physicalWidth'] * self::HEIGHT / self::WIDTH );
		$companions = self::drawnWith( $image, $params );
		if ( $companions ) {
			// The companions drawn with the file name its poster: one uploaded or replaced later (the
			// animation, the UE1 script) gives a new name, so the page shows a new poster, not the old.
			// A tag's other files are among them, so a tag's poster is never a file's own.
			$params['companions'] = substr( sha1( implode( '|', array_map( static function ( File $c ) {
				return $c->getSha1();
			}, $companions ) ) ), 0, 10 );
		}
		return true;
	}

	/** @inheritDoc */
	public function canRender( $file ) {
		return true;
	}

	/** @inheritDoc */
	public function getParamMap() {
		return [
			'img_width' => 'width',
			'rigscope_clip' => 'clip',
			'rigscope_frame' => 'frame',
		];
	}

	/** @inheritDoc */
	public function validateParam( $name, $value ) {
		if ( $name === 'width' || $name === 'height' ) {
			return $value > 0;
		}
		if ( $name === 'clip' ) {
			return is_string( $value ) && $value !== '' && mb_strlen( $value ) <= 200;
		}
		if ( $name === 'frame' ) {
			return preg_match( '/^\d{1,7}$/', (string)$value ) === 1;
		}
		return false;
	}

	/** @inheritDoc */
	public function makeParamString( $params ) {
		$s = parent::makeParamString( $params );
		if ( isset( $params['frame'] ) ) {
			$s = 'frame' . (int)$params['frame'] . '-' . $s;
		}
		if ( isset( $params['clip'] ) && $params['clip'] !== '' ) {
			// A clip name may hold anything: thumbnail names hold a readable one or its hash.
			$clip = (string)$params['clip'];
			$s = ( preg_match( '/^[A-Za-z0-9_]{1,64}$/', $clip ) ? "clip-$clip" : 'cliph-' . substr( md5( $clip ), 0, 12 ) )
				. '-' . $s;
		}
		if ( isset( $params['companions'] ) ) {
			$s = 'with-' . $params['companions'] . '-' . $s;
		}
		return $s;
	}

	/** @inheritDoc */
	public function parseParamString( $str ) {
		// The companions' part is not kept: normaliseParams finds the companions of now.
		if ( !preg_match( '/^(?:with-[0-9a-f]{10}-)?(?:clip-([A-Za-z0-9_]{1,64})-)?(?:frame(\d{1,7})-)?(\d+)px$/', $str, $m ) ) {
			return false;
		}
		$params = [ 'width' => (int)$m[3] ];
		if ( $m[1] !== '' ) {
			$params['clip'] = $m[1];
		}
		if ( $m[2] !== '' ) {
			$params['frame'] = (int)$m[2];
		}
		return $params;
	}

	/** @inheritDoc */
	public function getThumbType( $ext, $mime, $params = null ) {
		return [ 'png', 'image/png' ];
	}

	/**
	 * @inheritDoc
	 * The facts come from `rigscope inspect --json` when $wgRigscopeNode is set, else from the
	 * header check alone.
	 */
	public function getSizeAndMetadata( $state, $path ) {
		$metadata = [ 'v' => self::METADATA_VERSION ] + Inspector::facts( $path );
		return [ 'width' => self::WIDTH, 'height' => self::HEIGHT, 'metadata' => $metadata ];
	}

	/** @inheritDoc */
	public function getMetadataType( $image ) {
		return 'rigscope';
	}

	/** @inheritDoc */
	public function isFileMetadataValid( $image ) {
		$v = $image->getMetadataItem( 'v' );
		return $v === self::METADATA_VERSION ? self::METADATA_GOOD : self::METADATA_BAD;
	}

	/** @inheritDoc */
	public function formatMetadata( $image, $context = false ) {
		// The file page shows its own table of facts (FactsTable), beside the player.
		return false;
	}

	/** @inheritDoc */
	public function getShortDesc( $file ) {
		return wfMessage( 'rigscope-short-desc' )->params( self::summary( $file ) )->escaped();
	}

	/** @inheritDoc */
	public function getLongDesc( $file ) {
		return wfMessage( 'rigscope-long-desc' )->params( self::summary( $file ) )->sizeParams( $file->getSize() )->escaped();
	}

	/** @inheritDoc */
	public function getDimensionsString( $file ) {
		return self::summary( $file );
	}

	/** What a model file holds, in a few words: its format and counts. */
	public static function summary( File $file ): string {
		$facts = $file->getMetadataArray();
		$parts = [ FactsTable::formatLabel( $facts ) ];
		foreach ( FactsTable::countsShown( $facts ) as $name => $n ) {
			$parts[] = "$n $name";
		}
		return implode( ', ', array_slice( $parts, 0, 5 ) );
	}

	/** @inheritDoc */
	public function parserTransformHook( $parser, $file ) {
		PlayerMarkup::addModules( $parser->getOutput() );
		Companions::register( $parser, $file );
	}

	/**
	 * A poster made by $wgRigscopePosterCommand (kept by the file repository like any thumbnail),
	 * or, without one, a card made of the file's name and counts.
	 *
	 * @inheritDoc
	 */
	public function doTransform( $image, $dstPath, $dstUrl, $params, $flags = 0 ) {
		if ( !$this->normaliseParams( $image, $params ) ) {
			return new TransformParameterError( $params );
		}
		$width = (int)$params['physicalWidth'];
		$height = (int)$params['physicalHeight'];
		// Shown at the size asked for, in the shape of a poster.
		$params['height'] = (int)round( $params['width'] * self::HEIGHT / self::WIDTH );
		if ( !Inspector::posterCommand() ) {
			return new RigscopeThumbnail( $image, false, false, $params );
		}
		if ( $flags & self::TRANSFORM_LATER ) {
			return new RigscopeThumbnail( $image, $dstUrl, false, $params );
		}
		if ( !wfMkdirParents( dirname( $dstPath ), null, __METHOD__ ) ) {
			return new MediaTransformError( 'thumbnail_error', $width, $height, wfMessage( 'thumbnail_dest_directory' ) );
		}
		$companions = self::drawnWith( $image, $params );
		if ( !self::drawsAlone( $image ) && !$companions ) {
			// An animation without its mesh, half of a UE1 pair: nothing to draw yet.
			return new RigscopeThumbnail( $image, false, false, $params );
		}
		// A poster that failed is not tried again on every parse (each try starts a browser), until
		// the file or its companions change.
		$stash = MediaWikiServices::getInstance()->getMainObjectStash();
		$failedKey = $stash->makeKey( 'rigscope-poster-failed', sha1( implode( '|', array_merge(
			[ $image->getSha1(), $this->makeParamString( $params ) ],
			array_map( static function ( File $c ) {
				return $c->getSha1();
			}, $companions )
		) ) ) );
		if ( $stash->get( $failedKey ) ) {
			return new RigscopeThumbnail( $image, false, false, $params );
		}
		$sources = [ $image->getLocalRefPath() ];
		foreach ( $companions as $companion ) {
			$sources[] = $companion->getLocalRefPath();
		}
		$error = Inspector::poster( array_filter( $sources ), $dstPath, $width, $height, $params['clip'] ?? null,
			isset( $params['frame'] ) ? (int)$params['frame'] : null );
		if ( $error !== null ) {
			// A wiki page never breaks on a poster: the card stands in, and the reason is logged.
			wfDebugLog( 'rigscope', 'poster failed for ' . $image->getName() . ": $error" );
			$stash->set( $failedKey, 1, $stash::TTL_DAY );
			return new RigscopeThumbnail( $image, false, false, $params );
		}
		return new RigscopeThumbnail( $image, $dstUrl, $dstPath, $params );
	}

	/**
	 * The files a poster draws beside the file: its companions by name, then the other files of the
	 * tag or parser function that shows it (`$params['with']`, names), each once. A tag's clip is
	 * often in one of those (`{{#rigscope:Skeleton.pmd|Skeleton_idle.psa|clip=skeleton_idle}}`).
	 *
	 * @param File $image
	 * @param array $params
	 * @return File[]
	 */
	private static function drawnWith( File $image, array $params ): array {
		$files = Companions::of( $image );
		$names = [ $image->getName() => true ];
		foreach ( $files as $file ) {
			$names[$file->getName()] = true;
		}
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		foreach ( array_slice( (array)( $params['with'] ?? [] ), 0, ModelTag::MAX_FILES ) as $name ) {
			$title = is_string( $name ) ? Title::makeTitleSafe( NS_FILE, $name ) : null;
			$file = $title ? $repo->findFile( $title ) : false;
			if ( $file && $file->exists() && !isset( $names[$file->getName()] ) ) {
				$names[$file->getName()] = true;
				$files[] = $file;
			}
		}
		return $files;
	}

	/** Whether a file holds something to draw by itself (a mesh, a bundle), from its facts. */
	private static function drawsAlone( File $file ): bool {
		$kind = $file->getMetadataItem( 'kind' );
		return !in_array( $kind, [ 'psa', 'pssa', 'ue1-data', 'ue1-anim' ], true );
	}

	/** The handler of a file, when it is this one. */
	public static function isModel( ?File $file ): bool {
		return $file && $file->exists() && $file->getHandler() instanceof self;
	}

	/** The extension's player scripts, as served from the extension's folder. */
	public static function playerUrl(): string {
		$config = MediaWikiServices::getInstance()->getMainConfig();
		$path = $config->get( 'RigscopePlayerPath' );
		if ( !$path ) {
			$path = $config->get( 'ExtensionAssetsPath' ) . '/Rigscope/resources/player';
		}
		return rtrim( $path, '/' ) . '/rigscope-viewer.js';
	}

	/** Parser output hooks for a page that shows a model (used by the tag and function too). */
	public static function forParser( Parser $parser ): void {
		PlayerMarkup::addModules( $parser->getOutput() );
	}
}
