<?php
/**
 * The extension names MediaWiki's classes and interfaces as current MediaWiki does. Where an old
 * name is gone there or kept only as a deprecated alias (to be removed, as Html's and Title's
 * were), 1.39 has only the old name, so on 1.39 the current name is made an alias of the old one.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

class Compat {

	/**
	 * Current name => the name 1.39 has. Not listed: names 1.39 already has under the current name
	 * (MediaWiki\Parser\ParserOutput; MediaWiki\Title\Title from 1.39.4, listed for 1.39.0 to 1.39.3).
	 */
	public const RENAMED_AFTER_1_39 = [
		'MediaWiki\\Html\\Html' => 'Html',
		'MediaWiki\\Title\\Title' => 'Title',
		'MediaWiki\\Parser\\Parser' => 'Parser',
		'MediaWiki\\Parser\\PPFrame' => 'PPFrame',
		'MediaWiki\\FileRepo\\File\\File' => 'File',
		'MediaWiki\\Media\\ImageHandler' => 'ImageHandler',
		'MediaWiki\\Media\\ThumbnailImage' => 'ThumbnailImage',
		'MediaWiki\\Media\\MediaTransformError' => 'MediaTransformError',
		'MediaWiki\\Media\\TransformParameterError' => 'TransformParameterError',
		'MediaWiki\\Output\\Hook\\BeforePageDisplayHook' => 'MediaWiki\\Hook\\BeforePageDisplayHook',
		'MediaWiki\\Parser\\Hook\\ParserFirstCallInitHook' => 'MediaWiki\\Hook\\ParserFirstCallInitHook',
		'MediaWiki\\Upload\\Hook\\UploadVerifyFileHook' => 'MediaWiki\\Hook\\UploadVerifyFileHook',
	];

	/**
	 * The extension's registration callback (extension.json "callback"): it runs before any hook
	 * handler or media handler of the extension is loaded, so that the names they extend and
	 * implement resolve.
	 */
	public static function onRegistration(): void {
		foreach ( self::RENAMED_AFTER_1_39 as $current => $old ) {
			if ( !self::exists( $current ) && self::exists( $old ) ) {
				class_alias( $old, $current );
			}
		}
	}

	/** Whether a class or an interface of that name is there (class_exists is false for an interface). */
	private static function exists( string $name ): bool {
		return class_exists( $name ) || interface_exists( $name );
	}
}
