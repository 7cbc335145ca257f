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
	 * Current name => [ the name 1.39 has, the release from which the current name is there (its old
	 * name deprecated as an alias of it) ]. Not listed: names 1.39 already has under the current name
	 * (MediaWiki\Parser\ParserOutput; MediaWiki\Title\Title from 1.39.4, listed for 1.39.0 to 1.39.3).
	 */
	public const RENAMED_AFTER_1_39 = [
		'MediaWiki\\Html\\Html' => [ 'Html', '1.40' ],
		'MediaWiki\\Title\\Title' => [ 'Title', '1.40' ],
		'MediaWiki\\Parser\\Parser' => [ 'Parser', '1.42' ],
		'MediaWiki\\Parser\\PPFrame' => [ 'PPFrame', '1.43' ],
		'MediaWiki\\FileRepo\\File\\File' => [ 'File', '1.44' ],
		'MediaWiki\\Media\\ImageHandler' => [ 'ImageHandler', '1.46' ],
		'MediaWiki\\Media\\ThumbnailImage' => [ 'ThumbnailImage', '1.46' ],
		'MediaWiki\\Media\\MediaTransformError' => [ 'MediaTransformError', '1.46' ],
		'MediaWiki\\Media\\TransformParameterError' => [ 'TransformParameterError', '1.46' ],
		'MediaWiki\\Output\\Hook\\BeforePageDisplayHook' => [ 'MediaWiki\\Hook\\BeforePageDisplayHook', '1.42' ],
		'MediaWiki\\Parser\\Hook\\ParserFirstCallInitHook' => [ 'MediaWiki\\Hook\\ParserFirstCallInitHook', '1.46' ],
		'MediaWiki\\Upload\\Hook\\UploadVerifyFileHook' => [ 'MediaWiki\\Hook\\UploadVerifyFileHook', '1.46' ],
		'MediaWiki\\Specials\\Hook\\SoftwareInfoHook' => [ 'MediaWiki\\Hook\\SoftwareInfoHook', '1.46' ],
	];

	/**
	 * The extension's registration callback (extension.json "callback"): it runs before any hook
	 * handler or media handler of the extension is loaded, so that the names they extend and
	 * implement resolve. From the release that has a name, nothing is asked of the autoloader: asking
	 * whether a class exists loads its file (Parser's among them) on every request.
	 */
	public static function onRegistration(): void {
		foreach ( self::RENAMED_AFTER_1_39 as $current => [ $old, $since ] ) {
			if ( version_compare( MW_VERSION, $since, '<' ) && !self::exists( $current ) && self::exists( $old ) ) {
				class_alias( $old, $current );
			}
		}
	}

	/** Whether a class or an interface of that name is there (class_exists is false for an interface). */
	private static function exists( string $name ): bool {
		return class_exists( $name ) || interface_exists( $name );
	}
}
