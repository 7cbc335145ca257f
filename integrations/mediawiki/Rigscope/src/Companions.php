<?php
/**
 * Files a model file plays with, found on the wiki by name (as the viewer's families do for a
 * loader given one URL): a UE1 `_d.3d`, its `_a.3d` and the `.uc` of its name, and a mesh and the
 * `.psa` of its name.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;
use MediaWiki\Parser\Parser;
use MediaWiki\Title\Title;

class Companions {

	/**
	 * The names a file's companions would have, in groups: one file is taken from each group, the
	 * first that exists (a UE1 half takes the other half and its script; an animation, one mesh).
	 *
	 * @param string $name
	 * @return string[][]
	 */
	public static function groups( string $name ): array {
		if ( preg_match( '/^(.*)_([da])\.3d$/i', $name, $m ) ) {
			// The other half, and the class script of the same name (its scale, sequences, textures).
			return [ [ $m[1] . '_' . ( strtolower( $m[2] ) === 'd' ? 'a' : 'd' ) . substr( $name, -3 ) ], [ $m[1] . '.uc' ] ];
		}
		if ( preg_match( '/^(.*)\.(psk|pskx|pmd)$/i', $name, $m ) ) {
			return [ [ $m[1] . '.psa' ] ];
		}
		if ( preg_match( '/^(.*)\.psa$/i', $name, $m ) ) {
			return [ [ $m[1] . '.psk', $m[1] . '.pskx', $m[1] . '.pmd' ] ];
		}
		return [];
	}

	/**
	 * Every name a file's companions could have.
	 *
	 * @param string $name
	 * @return string[]
	 */
	public static function candidates( string $name ): array {
		return array_merge( [], ...self::groups( $name ) );
	}

	/**
	 * Records the companions' names as files the page uses, found or not: uploading one later
	 * renders the page again, and the file's page lists it.
	 *
	 * @param Parser $parser
	 * @param File $file
	 */
	public static function register( Parser $parser, File $file ): void {
		foreach ( self::candidates( $file->getName() ) as $candidate ) {
			$title = Title::makeTitleSafe( NS_FILE, $candidate );
			if ( $title ) {
				$parser->fetchFileAndTitle( $title );
			}
		}
	}

	/**
	 * @param File $file
	 * @return File[] companions that exist on this wiki, one of each group
	 */
	public static function of( File $file ): array {
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		$found = [];
		foreach ( self::groups( $file->getName() ) as $group ) {
			foreach ( $group as $candidate ) {
				$title = Title::makeTitleSafe( NS_FILE, $candidate );
				$other = $title ? $repo->findFile( $title ) : false;
				if ( $other && $other->exists() ) {
					$found[] = $other;
					break;
				}
			}
		}
		return $found;
	}
}
