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
	 * The thumbnail parameters this handler takes. Any other is dropped, whoever asks: thumb.php
	 * hands its query string to normaliseParams as it is.
	 */
	private const PARAMS = [ 'width', 'height', 'page', 'physicalWidth', 'physicalHeight', 'clip', 'cliph', 'frame',
		'mesh', 'meshh', 'isFilePageThumb' ];

	/** Poster jobs one request may queue: a page (or an API parse) of many thumbnails queues no more. */
	private const QUEUE_LIMIT = 100;

	/**
	 * The other files of the tag or parser function being drawn: set only around the extension's
	 * own transform calls (transformWith), so a request's parameters never choose files.
	 * @var string[]
	 */
	private static $with = [];

	/** Whether a poster job is drawing: the only time a poster is drawn (never inside a parse). */
	private static $drawing = false;

	/** Poster jobs queued in this request. */
	private static $queued = 0;

	/**
	 * A file's thumbnail drawn with the other files of a tag (its clip may be in one of them).
	 *
	 * @param File $file
	 * @param array $params
	 * @param string[] $with names of the tag's other files
	 * @param int $flags File::transform's
	 * @return \MediaTransformOutput|false
	 */
	public static function transformWith( File $file, array $params, array $with, int $flags = 0 ) {
		$before = self::$with;
		self::$with = array_slice( array_values( array_filter( $with, 'is_string' ) ), 0, ModelTag::MAX_FILES );
		try {
			return $file->transform( $params, $flags );
		} finally {
			self::$with = $before;
		}
	}

	/** Posters one job draws in one run of the command line at most (its wall clock grows with them). */
	public const BATCH = 20;

	/**
	 * The posters a batch has drawn, by thumbnail name: doTransform stores them where MediaWiki
	 * keeps thumbnails.
	 * @var string[]
	 */
	private static $predrawn = [];

	/**
	 * Draws the posters of several views of one or more sets of files now, in one run of the
	 * command line (one browser), and stores each as MediaWiki stores a thumbnail. Called by
	 * PosterJob only. Views whose poster exists, failed lately or is not wanted (a clip the files
	 * do not have) are skipped; at most BATCH + 1 are drawn, the job's own set's first.
	 *
	 * A view of the job's own set that was not drawn is remembered as failed (its card stands in,
	 * and it is not tried again for a while); one of another set is left to that view's own job,
	 * which tries it in a run of its own: a set that breaks a run costs other sets nothing.
	 *
	 * @param array[] $sets each [ 'file' => File, 'views' => thumbnail parameters (width, clip,
	 *   frame), 'with' => the tag's other files ]: the job's own set first
	 * @return File[] the files of which a poster was stored
	 */
	public static function drawNow( array $sets ): array {
		$before = self::$with;
		$dir = null;
		try {
			$batch = Inspector::posterCommand() ? self::toDrawAll( $sets ) : [];
			$dir = $batch ? Inspector::tempDir() : null;
			if ( $dir === null ) {
				return [];
			}
			$runs = [];
			$n = 0;
			foreach ( $batch as $i => $set ) {
				$posters = [];
				foreach ( $set['todo'] as $name => [ , $checked, $normal ] ) {
					$posters[$name] = [ 'out' => "$dir/poster-" . $n++ . '.png', 'width' => $normal['physicalWidth'],
						'height' => $normal['physicalHeight'], 'clip' => $checked['clip'], 'frame' => $checked['fileFrame'],
						'mesh' => $checked['mesh'] ];
				}
				$files = [ $set['file']->getName() => $set['file']->getLocalRefPath() ];
				foreach ( $set['companions'] as $companion ) {
					$files[$companion->getName()] ??= $companion->getLocalRefPath();
				}
				$runs[$i] = [ 'paths' => array_filter( $files ), 'posters' => $posters ];
			}
			$started = microtime( true );
			$drawn = Inspector::posters( array_values( $runs ), $dir );
			$stored = [];
			$shared = count( $batch ) > 1 ? ', ' . count( $batch ) . ' sets of files' : '';
			foreach ( $batch as $i => $set ) {
				$outs = array_column( $runs[$i]['posters'], 'out' );
				wfDebugLog( 'rigscope', sprintf( 'drew %d of %d poster(s) of %s in one run (%.1f s%s)', count( array_intersect( $outs, $drawn ) ),
					count( $outs ), $set['file']->getName(), microtime( true ) - $started, $shared ) );
				if ( self::store( $set, $runs[$i]['posters'], $drawn ) ) {
					$stored[] = $set['file'];
				}
			}
			return $stored;
		} finally {
			self::$with = $before;
			if ( $dir !== null ) {
				Inspector::removeDir( $dir );
			}
		}
	}

	/**
	 * The sets of a batch with views still to draw, each [ file, with, own, companions, todo ]
	 * (todo as toDraw's), BATCH + 1 views at most in all.
	 *
	 * @param array[] $sets as drawNow's
	 * @return array[]
	 */
	private static function toDrawAll( array $sets ): array {
		$batch = [];
		$room = self::BATCH + 1;
		foreach ( $sets as $i => $set ) {
			self::$with = array_slice( array_values( array_filter( $set['with'], 'is_string' ) ), 0, ModelTag::MAX_FILES );
			$file = $set['file'];
			$companions = self::drawnWith( $file );
			if ( $room <= 0 || ( !self::drawsAlone( $file ) && !$companions ) ) {
				continue;
			}
			$todo = self::toDraw( $file, $companions, array_slice( $set['views'], 0, $room ) );
			if ( $todo ) {
				$batch[] = [ 'file' => $file, 'with' => self::$with, 'own' => $i === 0, 'companions' => $companions, 'todo' => $todo ];
				$room -= count( $todo );
			}
		}
		return $batch;
	}

	/**
	 * Stores the posters of one set of a batch where MediaWiki keeps thumbnails (doTransform,
	 * while drawing, takes them from $predrawn).
	 *
	 * @param array $set of toDrawAll's
	 * @param array[] $posters by thumbnail name, with their outs
	 * @param string[] $drawn the outs the run drew
	 * @return bool whether one was stored
	 */
	private static function store( array $set, array $posters, array $drawn ): bool {
		self::$with = $set['with'];
		self::$drawing = true;
		$stored = 0;
		try {
			foreach ( $set['todo'] as $name => [ $params ] ) {
				$out = $posters[$name]['out'];
				if ( !in_array( $out, $drawn, true ) && !$set['own'] ) {
					// Another set's view: its own job tries it again.
					continue;
				}
				self::$predrawn = in_array( $out, $drawn, true ) ? [ $name => $out ] : [];
				$thumb = $set['file']->transform( $params, File::RENDER_NOW );
				if ( $thumb && !$thumb->isError() && $thumb->getUrl() ) {
					$stored++;
				}
			}
		} finally {
			self::$drawing = false;
			self::$predrawn = [];
		}
		return $stored > 0;
	}

	/**
	 * The views of a batch still to draw, by thumbnail name: [ params, checked view, normalised ].
	 *
	 * @param File $file
	 * @param File[] $companions
	 * @param array[] $views
	 * @return array[]
	 */
	private static function toDraw( File $file, array $companions, array $views ): array {
		$todo = [];
		$handler = $file->getHandler();
		foreach ( $views as $params ) {
			$normal = $params;
			if ( !is_array( $params ) || !$handler->normaliseParams( $file, $normal ) ) {
				continue;
			}
			$checked = self::view( $file, $companions, $params );
			$name = $file->thumbName( $normal );
			if ( $checked['problem'] !== null || isset( $todo[$name] )
				|| $file->getRepo()->fileExists( $file->getThumbPath( $name ) )
				|| self::failures()->get( self::failureKey( $file, $normal, $companions ) )
			) {
				continue;
			}
			$todo[$name] = [ $params, $checked, $normal ];
		}
		return $todo;
	}

	/**
	 * Posters are drawn in two sizes only, 640 and 1280 pixels wide, and scaled by the browser: a
	 * poster takes a headless browser some seconds, so a page's thumbnails, their 1.5x and 2x
	 * versions, the file page and its OpenGraph image share one per clip and frame. A clip is
	 * kept only when the files have it, a frame only when it is inside its clip: anything else is
	 * dropped here (thumb.php's requests draw no poster for it) and shown as a card saying why.
	 *
	 * @inheritDoc
	 */
	public function normaliseParams( $image, &$params ) {
		$params = array_intersect_key( $params, array_flip( self::PARAMS ) );
		if ( !parent::normaliseParams( $image, $params ) ) {
			return false;
		}
		$params['physicalWidth'] = $params['physicalWidth'] <= self::WIDTH ? self::WIDTH : 2 * self::WIDTH;
		$params['physicalHeight'] = (int)round( $params['physicalWidth'] * self::HEIGHT / self::WIDTH );
		$companions = self::drawnWith( $image );
		$view = self::view( $image, $companions, $params );
		unset( $params['clip'], $params['cliph'], $params['frame'], $params['mesh'], $params['meshh'] );
		if ( $view['problem'] === null ) {
			if ( $view['mesh'] !== null ) {
				$params['mesh'] = $view['mesh'];
			}
			if ( $view['clip'] !== null ) {
				$params['clip'] = $view['clip'];
			}
			if ( $view['frame'] !== null ) {
				$params['frame'] = $view['frame'];
			}
		}
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

	/**
	 * The clip and frame a thumbnail asks for, checked against the clips the file and its
	 * companions hold (their stored facts). `frame` counts within the clip, from 0, as the
	 * player's frame counter does for every clip but a UE1 one (which counts from the start of
	 * its `_a.3d`): `fileFrame` is that number in the file's own count, for the player and poster.
	 *
	 * @param File $image
	 * @param File[] $companions
	 * @param array $params clip (or cliph, a thumbnail name's hash of one), frame
	 * @return array clip, frame, fileFrame, problem (a sentence, or null)
	 */
	public static function view( File $image, array $companions, array $params ): array {
		$out = [ 'mesh' => null, 'clip' => null, 'frame' => null, 'fileFrame' => null, 'problem' => null ];
		$mesh = PackageFacts::meshAsked( $image, $params );
		if ( $mesh['problem'] !== null ) {
			$out['problem'] = $mesh['problem'];
			return $out;
		}
		$out['mesh'] = $mesh['name'];
		$askedClip = isset( $params['clip'] ) && is_string( $params['clip'] ) && $params['clip'] !== '' ? $params['clip'] : null;
		$askedHash = isset( $params['cliph'] ) && is_string( $params['cliph'] ) ? $params['cliph'] : null;
		$askedFrame = isset( $params['frame'] ) && preg_match( '/^\d{1,7}$/', (string)$params['frame'] )
			? (int)$params['frame'] : null;
		if ( $askedClip === null && $askedHash === null && $askedFrame === null ) {
			return $out;
		}
		$clips = PackageFacts::isPackage( $image ) ? PackageFacts::clips( $image, $out['mesh'] )
			: self::clips( $image, $companions );
		if ( !$clips && Inspector::node() === null ) {
			// A wiki that does not run the command line knows no clips: the player is given what was
			// asked and says itself what it cannot show. No poster is drawn on such a wiki.
			$out['clip'] = $askedClip;
			$out['frame'] = $out['fileFrame'] = $askedFrame;
			return $out;
		}
		if ( !$clips ) {
			$out['problem'] = wfMessage( 'rigscope-view-no-clips' )->inContentLanguage()->text();
			return $out;
		}
		$clip = $clips[0];
		if ( $askedClip !== null || $askedHash !== null ) {
			$clip = null;
			foreach ( $clips as $c ) {
				if ( $askedHash !== null ? self::clipHash( $c['name'] ) === $askedHash : $c['name'] === $askedClip ) {
					$clip = $c;
					break;
				}
			}
			foreach ( $askedClip !== null && $clip === null ? $clips : [] as $c ) {
				if ( mb_strtolower( $c['name'] ) === mb_strtolower( $askedClip ) ) {
					$clip = $c;
					break;
				}
			}
			if ( $clip === null ) {
				$names = array_slice( array_column( $clips, 'name' ), 0, 12 );
				$out['problem'] = wfMessage( 'rigscope-view-no-clip' )
					->plaintextParams( $askedClip ?? '', implode( ', ', $names ) )
					->numParams( count( $clips ) )->inContentLanguage()->text();
				return $out;
			}
			$out['clip'] = $clip['name'];
		}
		if ( $askedFrame !== null ) {
			$last = max( 0, (int)( $clip['frames'] ?? 1 ) - 1 );
			if ( $askedFrame > $last ) {
				$out['problem'] = wfMessage( 'rigscope-view-frame-outside' )->numParams( $askedFrame )
					->plaintextParams( $clip['name'] )->numParams( $last )->inContentLanguage()->text();
				return $out;
			}
			$out['frame'] = $askedFrame;
			$out['fileFrame'] = (int)( $clip['startFrame'] ?? 0 ) + $askedFrame;
		}
		return $out;
	}

	/**
	 * The clips of a file and its companions: read together when it has companions, else its own.
	 *
	 * @param File $image
	 * @param File[] $companions
	 * @return array[] name, frames, startFrame
	 */
	private static function clips( File $image, array $companions ): array {
		$together = $companions ? Inspector::together( $image, $companions ) : null;
		$clips = $together['clips'] ?? $image->getMetadataArray()['sequences'] ?? [];
		return array_values( array_filter( is_array( $clips ) ? $clips : [], static function ( $c ) {
			return is_array( $c ) && isset( $c['name'] ) && is_string( $c['name'] );
		} ) );
	}

	/** A clip or mesh name's hash in thumbnail names, for names that are not plain words. */
	public static function clipHash( string $clip ): string {
		return substr( md5( $clip ), 0, 12 );
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
			'rigscope_mesh' => 'mesh',
		];
	}

	/** @inheritDoc */
	public function validateParam( $name, $value ) {
		if ( $name === 'width' || $name === 'height' ) {
			return $value > 0;
		}
		if ( $name === 'clip' || $name === 'mesh' ) {
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
			$s = ( preg_match( '/^[A-Za-z0-9_]{1,64}$/', $clip ) ? "clip-$clip" : 'cliph-' . self::clipHash( $clip ) )
				. '-' . $s;
		}
		if ( isset( $params['mesh'] ) && $params['mesh'] !== '' ) {
			$mesh = (string)$params['mesh'];
			$s = ( preg_match( '/^[A-Za-z0-9_]{1,64}$/', $mesh ) ? "mesh-$mesh" : 'meshh-' . self::clipHash( $mesh ) )
				. '-' . $s;
		}
		if ( isset( $params['companions'] ) ) {
			$s = 'with-' . $params['companions'] . '-' . $s;
		}
		return $s;
	}

	/** @inheritDoc */
	public function parseParamString( $str ) {
		// The companions' part is not kept: normaliseParams finds the companions of now. A hashed
		// clip name is resolved by normaliseParams against the file's clips.
		if ( !preg_match( '/^(?:with-[0-9a-f]{10}-)?(?:mesh-(?<mesh>[A-Za-z0-9_]{1,64})-|meshh-(?<meshh>[0-9a-f]{12})-)?'
			. '(?:clip-(?<clip>[A-Za-z0-9_]{1,64})-|cliph-(?<cliph>[0-9a-f]{12})-)?(?:frame(?<frame>\d{1,7})-)?(?<width>\d+)px$/',
			$str, $m )
		) {
			return false;
		}
		$params = [ 'width' => (int)$m['width'] ];
		foreach ( [ 'mesh', 'meshh', 'clip', 'cliph' ] as $part ) {
			if ( ( $m[$part] ?? '' ) !== '' ) {
				$params[$part] = $m[$part];
			}
		}
		if ( ( $m['frame'] ?? '' ) !== '' ) {
			$params['frame'] = (int)$m['frame'];
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
		return implode( ', ', array_merge( [ FactsTable::formatLabel( $facts ) ], FactsTable::countPhrases( $facts, 4 ) ) );
	}

	/** @inheritDoc */
	public function parserTransformHook( $parser, $file ) {
		// A model's thumbnail may queue a poster: it counts as an expensive parser function, so a
		// page of too many is listed in the wiki's tracking category.
		$parser->incrementExpensiveFunctionCount();
		PlayerMarkup::addModules( $parser->getOutput() );
		Companions::register( $parser, $file );
	}

	/**
	 * A poster made by $wgRigscopePosterCommand (kept by the file repository like any thumbnail),
	 * or a card made of the file's name and counts: without a poster command, until the poster is
	 * drawn, and when the clip or frame asked for is not there (the card says why).
	 *
	 * Posters are never drawn here in a parse, a page view or thumb.php: a missing one queues a
	 * PosterJob (run by MediaWiki's job runner, under PoolCounter and a few slots a server) and
	 * the card stands in; the job purges the pages that show the file once it is drawn.
	 *
	 * @inheritDoc
	 */
	public function doTransform( $image, $dstPath, $dstUrl, $params, $flags = 0 ) {
		$view = $params;
		if ( !$this->normaliseParams( $image, $params ) ) {
			return new TransformParameterError( $params );
		}
		$width = (int)$params['physicalWidth'];
		$height = (int)$params['physicalHeight'];
		// Shown at the size asked for, in the shape of a poster.
		$params['height'] = (int)round( $params['width'] * self::HEIGHT / self::WIDTH );
		$companions = self::drawnWith( $image );
		$checked = self::view( $image, $companions, $view );
		// What the player and the card need besides: the frame in the file's count, or why not.
		$params += [ 'problem' => $checked['problem'], 'clip' => $checked['clip'], 'fileFrame' => $checked['fileFrame'],
			'mesh' => $checked['mesh'] ];
		$card = new RigscopeThumbnail( $image, false, false, $params );
		if ( $checked['problem'] !== null || !Inspector::posterCommand() ) {
			return $card;
		}
		if ( !self::drawsAlone( $image ) && !$companions ) {
			// An animation without its mesh, half of a UE1 pair: nothing to draw yet.
			return $card;
		}
		if ( !self::$drawing ) {
			$storagePath = $image->getThumbPath( $image->thumbName( $params ) );
			if ( $image->getRepo() && $image->getRepo()->fileExists( $storagePath ) ) {
				return new RigscopeThumbnail( $image, $dstUrl, false, $params );
			}
			self::queue( $image, $params );
			return $card;
		}
		if ( !wfMkdirParents( dirname( $dstPath ), null, __METHOD__ ) ) {
			return new MediaTransformError( 'thumbnail_error', $width, $height, wfMessage( 'thumbnail_dest_directory' ) );
		}
		// A batch (drawNow) has drawn it: stored where MediaWiki keeps thumbnails.
		$drawn = self::$predrawn[$image->thumbName( $params )] ?? null;
		if ( $drawn === null || !copy( $drawn, $dstPath ) ) {
			// A wiki page never breaks on a poster: the card stands in, and the reason is logged.
			wfDebugLog( 'rigscope', 'poster failed for ' . $image->getName() . ' (' . $image->thumbName( $params ) . ')' );
			self::failures()->set( self::failureKey( $image, $params, $companions ), 1, self::FAILURE_TTL );
			return $card;
		}
		return new RigscopeThumbnail( $image, $dstUrl, $dstPath, $params );
	}

	/** How long a poster that could not be drawn is not tried again (each try starts a browser). */
	private const FAILURE_TTL = 86400;

	private static function failures() {
		return MediaWikiServices::getInstance()->getMainObjectStash();
	}

	/**
	 * @param File $image
	 * @param array $params normalised
	 * @param File[] $companions
	 * @return string the key a failed poster is remembered by, until the file or a companion changes
	 */
	private static function failureKey( File $image, array $params, array $companions ): string {
		return self::failures()->makeKey( 'rigscope-poster-failed', sha1( implode( '|', array_merge(
			[ $image->getSha1(), $image->thumbName( $params ), Inspector::cli() ],
			array_map( static function ( File $c ) {
				return $c->getSha1();
			}, $companions )
		) ) ) );
	}

	/**
	 * Queues the job that draws a poster, once per request and poster, unless it failed lately.
	 *
	 * @param File $image
	 * @param array $params normalised
	 */
	private static function queue( File $image, array $params ): void {
		static $asked = [];
		$name = $image->thumbName( $params );
		if ( isset( $asked[$name] ) || self::$queued >= self::QUEUE_LIMIT ) {
			return;
		}
		$asked[$name] = true;
		if ( self::failures()->get( self::failureKey( $image, $params, self::drawnWith( $image ) ) ) ) {
			return;
		}
		self::$queued++;
		$view = array_intersect_key( $params, array_flip( [ 'width', 'mesh', 'clip', 'frame' ] ) );
		// The job that runs first draws every view of the file asked for meanwhile, in one browser.
		PosterJob::remember( $image, self::$with, $view );
		MediaWikiServices::getInstance()->getJobQueueGroup()->lazyPush( new PosterJob( $image->getTitle(), [
			'params' => $view,
			'with' => self::$with,
		] ) );
	}

	/**
	 * The files a poster draws beside the file: its companions, then the other files of the tag
	 * or parser function that shows it (transformWith), each once. A tag's clip is often in one
	 * of those (`{{#rigscope:Skeleton.pmd|Skeleton_idle.psa|clip=skeleton_idle}}`).
	 *
	 * @param File $image
	 * @return File[]
	 */
	private static function drawnWith( File $image ): array {
		$files = Companions::of( $image );
		$names = [ $image->getName() => true ];
		foreach ( $files as $file ) {
			$names[$file->getName()] = true;
		}
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		foreach ( self::$with as $name ) {
			$title = Title::makeTitleSafe( NS_FILE, $name );
			$file = $title ? $repo->findFile( $title ) : false;
			if ( $file && $file->exists() && !isset( $names[$file->getName()] ) ) {
				$names[$file->getName()] = true;
				$files[] = $file;
			}
		}
		return $files;
	}

	/** Whether a file holds something to draw by itself (a mesh, a bundle, a package of meshes), from its facts. */
	private static function drawsAlone( File $file ): bool {
		$kind = $file->getMetadataItem( 'kind' );
		if ( $kind === 'upackage' ) {
			return PackageFacts::holdsMeshes( $file );
		}
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
