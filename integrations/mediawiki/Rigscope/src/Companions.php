<?php
/**
 * Files a model file plays with, found on the wiki by name (as the viewer's families do for a
 * loader given one URL): a UE1 `_d.3d` and its `_a.3d`, and a mesh and the `.psa` of its name.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use File;
use MediaWiki\MediaWikiServices;
use Title;

class Companions {

	/**
	 * @param File $file
	 * @return File[] companions that exist on this wiki
	 */
	public static function of( File $file ): array {
		$name = $file->getName();
		$candidates = [];
		if ( preg_match( '/^(.*)_([da])\.3d$/i', $name, $m ) ) {
			$candidates[] = $m[1] . '_' . ( strtolower( $m[2] ) === 'd' ? 'a' : 'd' ) . substr( $name, -3 );
		} elseif ( preg_match( '/^(.*)\.(psk|pskx|pmd)$/i', $name, $m ) ) {
			$candidates[] = $m[1] . '.psa';
		} elseif ( preg_match( '/^(.*)\.psa$/i', $name, $m ) ) {
			array_push( $candidates, $m[1] . '.psk', $m[1] . '.pskx', $m[1] . '.pmd' );
		}
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		$found = [];
		foreach ( $candidates as $candidate ) {
			$title = Title::makeTitleSafe( NS_FILE, $candidate );
			$other = $title ? $repo->findFile( $title ) : false;
			if ( $other && $other->exists() ) {
				$found[] = $other;
				if ( !str_ends_with( strtolower( $name ), '.psa' ) ) {
					break;
				}
			}
		}
		// An animation plays on one mesh.
		return array_slice( $found, 0, 1 );
	}
}
