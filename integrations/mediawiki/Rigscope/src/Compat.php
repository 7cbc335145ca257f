<?php
/**
 * The extension names MediaWiki's classes as current MediaWiki does. A class whose old global
 * name is gone there (Html and Title: their aliases, deprecated since 1.40, are removed) has only
 * its old name on 1.39, so on 1.39 the current name is made an alias of the old one.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

class Compat {

	/** Current name => the name 1.39 has (MediaWiki\Title\Title only since 1.39.4). */
	public const RENAMED_AFTER_1_39 = [
		'MediaWiki\\Html\\Html' => 'Html',
		'MediaWiki\\Title\\Title' => 'Title',
	];

	/**
	 * The extension's registration callback (extension.json "callback"): it runs before any hook
	 * handler or media handler of the extension is loaded.
	 */
	public static function onRegistration(): void {
		foreach ( self::RENAMED_AFTER_1_39 as $current => $old ) {
			if ( !class_exists( $current ) && class_exists( $old ) ) {
				class_alias( $old, $current );
			}
		}
	}
}
