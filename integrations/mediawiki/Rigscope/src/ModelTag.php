<?php
/**
 * A character made of several uploaded files:
 *   <rigscope clip="Walk" height="400">Grunt.psk Grunt.psa Grunt_Body.tga</rigscope>
 *   {{#rigscope:Grunt.psk|Grunt.psa|clip=Walk}}
 * Both give the same placeholder as a `[[File:…]]` thumbnail. A name that is no file on the wiki
 * gives an error box naming it.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Html\Html;
use MediaWiki\MediaWikiServices;
use MediaWiki\Parser\Parser;
use MediaWiki\Parser\PPFrame;
use MediaWiki\Title\Title;

class ModelTag {

	private const DEFAULT_WIDTH = 640;
	private const DEFAULT_HEIGHT = 400;
	private const MAX_SIDE = 2000;
	public const MAX_FILES = 64;

	/**
	 * `<rigscope mesh= clip= frame= width= height=>` file names `</rigscope>`: one per line, or separated
	 * by spaces (a name with spaces needs a line of its own).
	 *
	 * @param string|null $input
	 * @param array $args
	 * @param Parser $parser
	 * @param PPFrame $frame
	 * @return string HTML
	 */
	public static function tag( $input, array $args, Parser $parser, PPFrame $frame ) {
		$lines = array_values( array_filter( array_map( 'trim', preg_split( '/[\r\n|]+/', (string)$input ) ),
			'strlen' ) );
		// The cap is checked before any name is looked up: a tag of 10,000 names costs nothing.
		if ( count( $lines ) > self::MAX_FILES ) {
			return self::render( $parser, $lines, $args );
		}
		$names = [];
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		foreach ( $lines as $line ) {
			$title = Title::makeTitleSafe( NS_FILE, $line );
			if ( str_contains( $line, ' ' ) && !( $title && $repo->findFile( $title ) ) ) {
				array_push( $names, ...preg_split( '/\s+/', $line ) );
			} else {
				$names[] = $line;
			}
		}
		return self::render( $parser, $names, $args );
	}

	/**
	 * `{{#rigscope:A.psk|B.psa|clip=Walk|frame=3|height=400}}`
	 *
	 * @param Parser $parser
	 * @param PPFrame $frame
	 * @param array $args
	 * @return array
	 */
	public static function parserFunction( Parser $parser, PPFrame $frame, array $args ) {
		$names = [];
		$options = [];
		foreach ( $args as $arg ) {
			$text = trim( $frame->expand( $arg ) );
			if ( preg_match( '/^(mesh|clip|frame|width|height)\s*=(.*)$/s', $text, $m ) ) {
				$options[$m[1]] = trim( $m[2] );
			} elseif ( $text !== '' ) {
				$names[] = $text;
			}
		}
		return [ self::render( $parser, $names, $options ), 'isHTML' => true, 'noparse' => true ];
	}

	/**
	 * @param Parser $parser
	 * @param string[] $names
	 * @param array $options mesh (of a UE1 package), clip, frame, width, height
	 * @return string HTML
	 */
	private static function render( Parser $parser, array $names, array $options ): string {
		RigscopeHandler::forParser( $parser );
		if ( !$names ) {
			return self::error( wfMessage( 'rigscope-error-no-files' )->inContentLanguage()->text() );
		}
		if ( count( $names ) > self::MAX_FILES ) {
			return self::error( wfMessage( 'rigscope-error-too-many' )->numParams( count( $names ), self::MAX_FILES )
				->inContentLanguage()->text() );
		}
		// A tag may queue a poster and looks files up: an expensive parser function.
		if ( !$parser->incrementExpensiveFunctionCount() ) {
			return self::error( wfMessage( 'rigscope-error-expensive' )->inContentLanguage()->text() );
		}
		$files = [];
		$missing = [];
		foreach ( $names as $name ) {
			$name = preg_replace( '/^(File|Image|Media):/i', '', $name );
			$title = Title::makeTitleSafe( NS_FILE, $name );
			// Registered as a file link, so the file page lists this page and edits re-render it.
			[ $file ] = $title ? $parser->fetchFileAndTitle( $title ) : [ false ];
			if ( !$file instanceof File || !$file->exists() ) {
				$missing[] = $name;
				continue;
			}
			$files[] = $file;
		}
		if ( count( $files ) === 1 ) {
			Companions::register( $parser, $files[0] );
		}
		if ( $missing ) {
			// Names from the page are plain text in the message: never expanded as wikitext.
			return self::error( wfMessage( 'rigscope-error-missing' )->plaintextParams( implode( ', ', $missing ) )
				->numParams( count( $missing ) )->inContentLanguage()->text() );
		}
		$width = self::side( $options['width'] ?? null, self::DEFAULT_WIDTH );
		$height = self::side( $options['height'] ?? null, self::DEFAULT_HEIGHT );
		$frame = isset( $options['frame'] ) && preg_match( '/^\d{1,7}$/', (string)$options['frame'] )
			? (int)$options['frame']
			: null;
		$clip = isset( $options['clip'] ) ? mb_substr( trim( (string)$options['clip'] ), 0, 200 ) : null;
		$mesh = isset( $options['mesh'] ) ? mb_substr( trim( (string)$options['mesh'] ), 0, 200 ) : null;

		// The poster of the first model file, else a card naming the files.
		$model = null;
		foreach ( $files as $file ) {
			if ( RigscopeHandler::isModel( $file ) ) {
				$model = $file;
				break;
			}
		}
		$inner = null;
		$problem = null;
		$fileFrame = null;
		if ( $model ) {
			$params = [ 'width' => $width ];
			if ( $mesh ) {
				$params['mesh'] = $mesh;
			}
			if ( $clip ) {
				$params['clip'] = $clip;
			}
			if ( $frame !== null ) {
				$params['frame'] = $frame;
			}
			// The tag's other files are drawn with it: its clip may be in one of them.
			$with = [];
			foreach ( $files as $file ) {
				if ( $file !== $model ) {
					$with[] = $file->getName();
				}
			}
			$thumb = RigscopeHandler::transformWith( $model, $params, $with );
			$view = $thumb instanceof RigscopeThumbnail ? $thumb->getView() : [];
			$problem = $view['problem'] ?? null;
			$fileFrame = $view['fileFrame'] ?? null;
			$mesh = $view['mesh'] ?? null;
			if ( $thumb && !$thumb->isError() && $thumb->getUrl() ) {
				$inner = Html::element( 'img', [ 'src' => $thumb->getUrl(), 'alt' => wfMessage( 'rigscope-play-label' )
					->plaintextParams( implode( ', ', $names ) )->inContentLanguage()->text(), 'loading' => 'lazy',
					'decoding' => 'async',
					// The box's own shape: the poster (4:3) is cropped to it (object-fit in the styles).
					'width' => $width, 'height' => $height, 'style' => "aspect-ratio:$width/$height",
					'class' => 'rigscope-poster' ] );
			}
		}
		$inner ??= PlayerMarkup::card( $model ? array_merge( [ $model ], array_values( array_filter( $files,
			static function ( $f ) use ( $model ) {
				return $f !== $model;
			} ) ) ) : $files, $width, $height, '', $problem );
		$href = ( $model ?? $files[0] )->getDescriptionUrl();
		$inner = Html::rawElement( 'a', [ 'href' => $href, 'class' => 'rigscope-card-link' ], $inner );
		return PlayerMarkup::placeholder( $files, [
			// The mesh is kept when only its clip or frame is not there (view() gives none when it is not).
			'mesh' => $model ? $mesh : null,
			'clip' => $problem === null ? $clip : null,
			// The player counts frames as the file does (a UE1 clip starts where it starts).
			'frame' => $problem === null ? $fileFrame : null,
			'width' => $width,
			'height' => $height,
		], $inner, [ 'class' => 'rigscope-block' ] );
	}

	private static function side( $value, int $default ): int {
		$n = is_numeric( $value ) ? (int)$value : $default;
		return max( 64, min( self::MAX_SIDE, $n ) );
	}

	private static function error( string $text ): string {
		return Html::element( 'div', [ 'class' => 'error rigscope-error' ], $text );
	}
}
