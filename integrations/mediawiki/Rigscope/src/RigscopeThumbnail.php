<?php
/**
 * A model's thumbnail: its poster (an ordinary thumbnail image) or a card, inside a placeholder
 * that the client script swaps for the player on a click or Enter.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Html\Html;
use MediaWiki\Media\ThumbnailImage;

class RigscopeThumbnail extends ThumbnailImage {

	/** @var array the transform's parameters: clip and frame travel to the player */
	private $view;

	/**
	 * @param File $file
	 * @param string|false $url the poster, or false for a card
	 * @param string|false $path
	 * @param array $parameters width, height, clip, frame, fileFrame (frame in the file's count), problem
	 *   (why the clip or frame asked for is not shown)
	 */
	public function __construct( $file, $url, $path = false, $parameters = [] ) {
		parent::__construct( $file, $url, $path, $parameters );
		$this->view = $parameters;
	}

	/** @return array the view it was made for: clip, frame, fileFrame, problem */
	public function getView(): array {
		return $this->view;
	}

	/**
	 * @param array $options as ThumbnailImage::toHtml
	 * @return string HTML
	 */
	public function toHtml( $options = [] ) {
		$file = $this->file;
		if ( !empty( $this->view['isFilePageThumb'] ) && !Companions::playable( $file ) ) {
			// A file page of an animation no mesh of the wiki fits: its facts alone, no empty player.
			return '';
		}
		$width = (int)$this->getWidth();
		$height = (int)$this->getHeight();
		if ( $this->url ) {
			$options['loading'] = $options['loading'] ?? 'lazy';
			$inner = parent::toHtml( $options );
		} else {
			$link = !empty( $options['desc-link'] ) ? $this->getDescLinkAttribs(
				empty( $options['title'] ) ? null : $options['title'], $options['desc-query'] ?? ''
			) : [ 'href' => $file->getDescriptionUrl() ];
			$link['class'] = trim( ( $link['class'] ?? '' ) . ' rigscope-card-link' );
			$inner = Html::rawElement( 'a', $link,
				PlayerMarkup::card( [ $file ], $width, $height, $options['alt'] ?? '', $this->view['problem'] ?? null ) );
		}
		return PlayerMarkup::placeholder( [ $file ], [
			'mesh' => $this->view['mesh'] ?? null,
			'clip' => $this->view['clip'] ?? null,
			// The player counts frames as the file does (a UE1 clip starts where it starts).
			'frame' => $this->view['fileFrame'] ?? null,
			'width' => $width,
			'height' => $height,
		], $inner );
	}
}
