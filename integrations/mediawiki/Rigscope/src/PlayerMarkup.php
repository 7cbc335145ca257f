<?php
/**
 * The HTML a page holds before anyone clicks: a placeholder carrying the files' URLs, clip and
 * frame as data attributes, around a poster or a card. The client script (resources/ext.rigscope.js)
 * turns a placeholder into `<rigscope-viewer>` on a click or Enter; nothing else runs before.
 * Every text taken from a file or a page goes through Html (escaped).
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Html\Html;
use MediaWiki\Parser\ParserOutput;

class PlayerMarkup {

	/** The modules a page with a model loads: a small script and its styles. */
	public static function addModules( ParserOutput $output ): void {
		$output->addModules( [ 'ext.rigscope' ] );
		$output->addModuleStyles( [ 'ext.rigscope.styles' ] );
	}

	/**
	 * The client's settings (config.json of the ext.rigscope module): the player's address and the
	 * upload path every file it opens must be under. Both come from the wiki's configuration only.
	 *
	 * @param \MediaWiki\ResourceLoader\Context $context
	 * @param \Config $config (MediaWiki\Config\Config from 1.41)
	 * @return array
	 */
	public static function clientConfig( $context, $config ): array {
		return [
			'player' => RigscopeHandler::playerUrl(),
			'uploadPath' => (string)$config->get( 'UploadPath' ),
		];
	}

	/**
	 * @param File[] $files the model's files, in order (companions found by name are added)
	 * @param array $view mesh, clip, frame, width, height (pixels; width 0 = the page's width)
	 * @param string $innerHtml the poster or card
	 * @param array $extra more attributes (class)
	 * @return string HTML
	 */
	public static function placeholder( array $files, array $view, string $innerHtml, array $extra = [] ): string {
		$urls = [];
		$names = [];
		foreach ( self::withCompanions( $files ) as $file ) {
			$urls[] = $file->getUrl();
			$names[] = $file->getName();
		}
		$data = [ 'src' => $urls, 'name' => implode( ', ', $names ) ];
		if ( isset( $view['mesh'] ) && $view['mesh'] !== '' ) {
			// Of a UE1 package, the one mesh shown (the element's mesh attribute).
			$data['mesh'] = (string)$view['mesh'];
		}
		if ( isset( $view['clip'] ) && $view['clip'] !== '' ) {
			$data['clip'] = (string)$view['clip'];
		}
		if ( isset( $view['frame'] ) && $view['frame'] !== '' ) {
			$data['frame'] = (int)$view['frame'];
		}
		foreach ( [ 'width', 'height' ] as $side ) {
			if ( !empty( $view[$side] ) ) {
				$data[$side] = (int)$view[$side];
			}
		}
		$attribs = [
			'class' => trim( 'rigscope-thumb ' . ( $extra['class'] ?? '' ) ),
			// data-mw-* is reserved for extensions: the sanitizer removes it from page text, so the
			// client opens only what this extension made (an editor's copy of the markup does nothing).
			'data-mw-rigscope' => json_encode( $data, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES ),
		];
		$badge = Html::element( 'span', [ 'class' => 'rigscope-badge', 'aria-hidden' => 'true' ],
			wfMessage( 'rigscope-badge' )->inContentLanguage()->text() );
		$play = Html::element( 'span', [ 'class' => 'rigscope-play', 'aria-hidden' => 'true' ] );
		// A block (the tag and the parser function) is a div, so no paragraph wraps it, as wide as
		// asked: beside a floated thumbnail only when it fits there whole.
		$block = str_contains( $attribs['class'], 'rigscope-block' );
		if ( $block && !empty( $view['width'] ) ) {
			$attribs['style'] = 'width:' . (int)$view['width'] . 'px';
		}
		return Html::rawElement( $block ? 'div' : 'span', $attribs, $innerHtml . $badge . $play );
	}

	/**
	 * A card standing in for a poster: the name, the counts from the file's facts and a 3D badge.
	 *
	 * @param File[] $files
	 * @param int $width pixels (0: as wide as the page allows)
	 * @param int $height pixels
	 * @param string $alt
	 * @param string|null $problem why the clip or frame asked for is not shown (said on the card)
	 * @return string HTML
	 */
	public static function card( array $files, int $width, int $height, string $alt = '', ?string $problem = null ): string {
		$first = $files[0];
		$lines = '';
		$facts = $first->getMetadataArray();
		// What it holds, in words ("492 triangles", "12 clips"), in the page's language.
		$counts = FactsTable::countPhrases( $facts, 4 );
		$lines .= Html::element( 'span', [ 'class' => 'rigscope-card-name' ], $first->getName() );
		// A gallery's small card holds the name alone.
		$small = $width && $width < 200;
		if ( $small ) {
			$counts = [];
			$files = [ $first ];
		}
		if ( count( $files ) > 1 ) {
			$others = array_map( static function ( File $f ) {
				return $f->getName();
			}, array_slice( $files, 1 ) );
			$lines .= Html::element( 'span', [ 'class' => 'rigscope-card-files' ], implode( ' · ', $others ) );
		}
		if ( !$small ) {
			$lines .= Html::element( 'span', [ 'class' => 'rigscope-card-format' ], FactsTable::formatLabel( $facts ) );
		}
		if ( $counts && $problem === null ) {
			$lines .= Html::element( 'span', [ 'class' => 'rigscope-card-counts' ],
				implode( ' · ', array_slice( $counts, 0, 4 ) ) );
		}
		if ( $problem !== null ) {
			$lines .= Html::element( 'span', [ 'class' => 'rigscope-card-problem' ], $problem );
		}
		$style = $width ? "width:{$width}px;height:{$height}px" : "height:{$height}px";
		$label = $alt !== '' ? $alt
			: wfMessage( 'rigscope-play-label' )->params( $first->getName() )->inContentLanguage()->text();
		return Html::rawElement( 'span', [
			'class' => 'rigscope-card' . ( $small ? ' rigscope-card-small' : '' ),
			'style' => $style,
			'role' => 'img',
			'aria-label' => $label,
		], $lines );
	}

	/**
	 * The files with the companions each names (UE1 `_d.3d` ↔ `_a.3d`, a mesh's `.psa` of the same
	 * name), each once, in order.
	 *
	 * @param File[] $files
	 * @return File[]
	 */
	public static function withCompanions( array $files ): array {
		$out = [];
		foreach ( $files as $file ) {
			$out[$file->getName()] = $file;
		}
		if ( count( $files ) === 1 ) {
			foreach ( Companions::of( $files[0] ) as $c ) {
				$out[$c->getName()] ??= $c;
			}
		}
		return array_values( $out );
	}
}
