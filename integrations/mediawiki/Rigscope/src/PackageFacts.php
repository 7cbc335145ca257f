<?php
/**
 * UE1 packages (`.u`, `.utx`) on the wiki: what their metadata keeps of `rigscope inspect`'s
 * package record (the meshes with their clips, the textures, the packages they use), which mesh a
 * `[[File:Pkg.u|mesh=Name]]` asks for, and the rows of a package's file page.
 *
 * The package is read under a neutral name (Inspector::NAMES), so object paths in the record
 * start with that name: only names and groups are kept, never those paths.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Html\Html;
use MessageLocalizer;

class PackageFacts {

	/** Meshes, textures and used packages kept in metadata, at most (their counts are kept too). */
	public const MAX_LISTED = 100;

	/** Packages a package is shown with, at most (looked up by name on each view). */
	private const MAX_USES = 8;

	/**
	 * The metadata of a package from its inspect record: counts, version, meshes (name, group,
	 * class, vertices, triangles, frames, clips), textures (name, group, class, format, size) and
	 * the packages its texture slots name. A package of one mesh lists that mesh's clips as the
	 * file's own, as a loose mesh does.
	 *
	 * @param array $record one record of `rigscope inspect --json`
	 * @return array
	 */
	public static function fromRecord( array $record ): array {
		$package = is_array( $record['package'] ?? null ) ? $record['package'] : [];
		$meshes = array_values( array_filter( (array)( $package['meshes'] ?? [] ), 'is_array' ) );
		$textures = array_values( array_filter( (array)( $package['textures'] ?? [] ), 'is_array' ) );
		$uses = array_values( array_filter( (array)( $package['uses'] ?? [] ), 'is_string' ) );
		$facts = [
			'format' => 'upackage',
			'counts' => [ 'meshes' => count( $meshes ), 'textures' => count( $textures ) ],
			'info' => [ 'version' => (int)( $package['version'] ?? 0 ) ],
			'package' => [
				'meshes' => [],
				'meshCount' => count( $meshes ),
				'textures' => array_map( [ self::class, 'texture' ], array_slice( $textures, 0, self::MAX_LISTED ) ),
				'textureCount' => count( $textures ),
				'uses' => array_slice( $uses, 0, self::MAX_LISTED ),
			],
		];
		// Clips are kept for every mesh listed, up to the file's cap of clips in all.
		$room = Inspector::MAX_SEQUENCES;
		foreach ( array_slice( $meshes, 0, self::MAX_LISTED ) as $mesh ) {
			$kept = self::mesh( $mesh, $room );
			$room -= count( $kept['sequences'] );
			$facts['package']['meshes'][] = $kept;
		}
		if ( count( $meshes ) === 1 ) {
			$facts['sequences'] = $facts['package']['meshes'][0]['sequences'];
			$facts['sequenceCount'] = $facts['package']['meshes'][0]['sequenceCount'];
		}
		return $facts;
	}

	/** A mesh of the record, with at most $room of its clips. */
	private static function mesh( array $mesh, int $room ): array {
		$sequences = array_values( array_filter( (array)( $mesh['sequences'] ?? [] ), 'is_array' ) );
		$kept = [];
		foreach ( array_slice( $sequences, 0, max( 0, $room ) ) as $s ) {
			$kept[] = array_intersect_key( $s, [ 'name' => 1, 'frames' => 1, 'fps' => 1, 'startFrame' => 1 ] );
		}
		return [
			'name' => (string)( $mesh['name'] ?? '' ),
			'group' => (string)( $mesh['group'] ?? '' ),
			'className' => (string)( $mesh['className'] ?? '' ),
			'vertices' => (int)( $mesh['vertices'] ?? 0 ),
			'triangles' => (int)( $mesh['triangles'] ?? 0 ),
			'frames' => (int)( $mesh['frames'] ?? 0 ),
			'sequences' => $kept,
			'sequenceCount' => count( $sequences ),
		];
	}

	/** A texture of the record: what a reader is shown of it. */
	private static function texture( array $texture ): array {
		return [
			'name' => (string)( $texture['name'] ?? '' ),
			'group' => (string)( $texture['group'] ?? '' ),
			'className' => (string)( $texture['className'] ?? '' ),
			'format' => (string)( $texture['format'] ?? '' ),
			'width' => (int)( $texture['width'] ?? 0 ),
			'height' => (int)( $texture['height'] ?? 0 ),
		];
	}

	/** Whether a file is a UE1 package, from its facts. */
	public static function isPackage( File $file ): bool {
		return $file->getMetadataItem( 'kind' ) === 'upackage';
	}

	/**
	 * Whether a package holds a mesh to show. Not known (the wiki does not read files whole): it
	 * may, and the player says if it does not.
	 */
	public static function holdsMeshes( File $file ): bool {
		$package = $file->getMetadataItem( 'package' );
		return !is_array( $package ) || (int)( $package['meshCount'] ?? 0 ) > 0;
	}

	/** @return array[] the meshes kept in a package's metadata */
	private static function meshes( File $file ): array {
		$package = $file->getMetadataItem( 'package' );
		return is_array( $package ) ? array_values( array_filter( (array)( $package['meshes'] ?? [] ), 'is_array' ) ) : [];
	}

	/**
	 * The mesh a thumbnail asks for (`mesh=`, or `meshh` from a thumbnail name), checked against
	 * the package's meshes: by name, any case, or by its path (`Group.Name`, `Package.Group.Name`).
	 *
	 * @param File $file
	 * @param array $params
	 * @return array name (the mesh's own name, or null for the whole package), problem (a sentence, or null)
	 */
	public static function meshAsked( File $file, array $params ): array {
		$asked = isset( $params['mesh'] ) && is_string( $params['mesh'] ) && $params['mesh'] !== '' ? $params['mesh'] : null;
		$hash = isset( $params['meshh'] ) && is_string( $params['meshh'] ) ? $params['meshh'] : null;
		if ( $asked === null && $hash === null ) {
			return [ 'name' => null, 'problem' => null ];
		}
		if ( !self::isPackage( $file ) ) {
			return [ 'name' => null, 'problem' => wfMessage( 'rigscope-view-mesh-not-package' )
				->plaintextParams( $asked ?? '' )->inContentLanguage()->text() ];
		}
		$meshes = self::meshes( $file );
		if ( !$meshes && Inspector::node() === null ) {
			// Not read by the command line: the player is given the name and says itself if it is not there.
			return [ 'name' => $asked, 'problem' => null ];
		}
		foreach ( $meshes as $mesh ) {
			if ( $hash !== null ? RigscopeHandler::clipHash( $mesh['name'] ) === $hash : self::names( $mesh, $asked ) ) {
				return [ 'name' => $mesh['name'], 'problem' => null ];
			}
		}
		$names = array_slice( array_column( $meshes, 'name' ), 0, 12 );
		$total = (int)( $file->getMetadataItem( 'package' )['meshCount'] ?? count( $meshes ) );
		return [ 'name' => null, 'problem' => wfMessage( 'rigscope-view-no-mesh' )
			->plaintextParams( $asked ?? '', implode( ', ', $names ) )->numParams( $total )->inContentLanguage()->text() ];
	}

	/** Whether a name asked for names this mesh: its name, or its path with or without the package. */
	private static function names( array $mesh, string $asked ): bool {
		$asked = mb_strtolower( $asked );
		$name = mb_strtolower( $mesh['name'] );
		$inGroup = $mesh['group'] !== '' ? mb_strtolower( $mesh['group'] ) . '.' . $name : $name;
		return $asked === $name || $asked === $inGroup || str_ends_with( $asked, '.' . $inGroup );
	}

	/**
	 * The clips a view of a package may ask for: the mesh's, or for the whole package every clip
	 * name of its meshes once.
	 *
	 * @param File $file
	 * @param string|null $mesh a name meshAsked gave
	 * @return array[] name, frames, startFrame
	 */
	public static function clips( File $file, ?string $mesh ): array {
		$clips = [];
		foreach ( self::meshes( $file ) as $m ) {
			if ( $mesh !== null && $m['name'] !== $mesh ) {
				continue;
			}
			foreach ( (array)( $m['sequences'] ?? [] ) as $s ) {
				if ( is_array( $s ) && isset( $s['name'] ) && is_string( $s['name'] ) && !isset( $clips[$s['name']] ) ) {
					$clips[$s['name']] = $s;
				}
			}
		}
		return array_values( $clips );
	}

	/**
	 * The names the packages a package uses would have on the wiki (a texture package first).
	 *
	 * @param File $file
	 * @return string[][] one group per used package
	 */
	public static function usedNames( File $file ): array {
		$package = $file->getMetadataItem( 'package' );
		$uses = is_array( $package ) ? array_filter( (array)( $package['uses'] ?? [] ), 'is_string' ) : [];
		$groups = [];
		foreach ( array_slice( array_values( $uses ), 0, self::MAX_USES ) as $use ) {
			$groups[] = [ "$use.utx", "$use.u" ];
		}
		return $groups;
	}

	/**
	 * The rows of a package's file page: its meshes, textures and the packages it uses.
	 *
	 * @param array $facts the file's metadata
	 * @param File[] $companions the used packages found on the wiki
	 * @param MessageLocalizer $ctx
	 * @param callable $row function ( string $label, string $valueHtml )
	 */
	public static function rows( array $facts, array $companions, MessageLocalizer $ctx, callable $row ): void {
		$package = is_array( $facts['package'] ?? null ) ? $facts['package'] : [];
		$meshes = array_values( array_filter( (array)( $package['meshes'] ?? [] ), 'is_array' ) );
		if ( $meshes ) {
			$items = array_map( static function ( array $m ) use ( $ctx ) {
				return self::item( $m, $ctx->msg( 'rigscope-facts-package-mesh' )->plaintextParams( $m['className'] ?? '' )
					->numParams( (int)( $m['vertices'] ?? 0 ), (int)( $m['triangles'] ?? 0 ), (int)( $m['frames'] ?? 0 ),
						(int)( $m['sequenceCount'] ?? 0 ) ), $ctx );
			}, $meshes );
			$total = max( count( $meshes ), (int)( $package['meshCount'] ?? 0 ) );
			$row( $ctx->msg( 'rigscope-facts-package-meshes' )->numParams( $total )->text(),
				self::list( $items, $total, 'rigscope-package-meshes', $ctx ) );
		}
		$textures = array_values( array_filter( (array)( $package['textures'] ?? [] ), 'is_array' ) );
		if ( $textures ) {
			$items = array_map( static function ( array $t ) use ( $ctx ) {
				return self::item( $t, $ctx->msg( 'rigscope-facts-package-texture' )
					->plaintextParams( $t['format'] ?? '' )->numParams( (int)( $t['width'] ?? 0 ), (int)( $t['height'] ?? 0 ) ), $ctx );
			}, $textures );
			$total = max( count( $textures ), (int)( $package['textureCount'] ?? 0 ) );
			$row( $ctx->msg( 'rigscope-facts-package-textures' )->numParams( $total )->text(),
				self::list( $items, $total, 'rigscope-package-textures', $ctx ) );
		}
		$uses = array_values( array_filter( (array)( $package['uses'] ?? [] ), 'is_string' ) );
		if ( $uses ) {
			$found = [];
			foreach ( $companions as $c ) {
				$found[mb_strtolower( pathinfo( $c->getName(), PATHINFO_FILENAME ) )] ??= $c;
			}
			$items = array_map( static function ( string $use ) use ( $found, $ctx ) {
				$file = $found[mb_strtolower( $use )] ?? null;
				return $file
					? Html::rawElement( 'li', [], Html::element( 'a', [ 'href' => $file->getDescriptionUrl() ], $file->getName() ) )
					: Html::element( 'li', [], $ctx->msg( 'rigscope-facts-package-missing' )->plaintextParams( $use )->text() );
			}, $uses );
			$row( $ctx->msg( 'rigscope-facts-package-uses' )->text(), self::list( $items, count( $uses ), '', $ctx ) );
		}
	}

	/**
	 * A list item: an object's name, its group, and what the message says of it.
	 *
	 * @param array $object
	 * @param \Message $said
	 * @param MessageLocalizer $ctx
	 * @return string HTML
	 */
	private static function item( array $object, $said, MessageLocalizer $ctx ): string {
		$group = (string)( $object['group'] ?? '' );
		return Html::rawElement( 'li', [],
			Html::element( 'span', [ 'class' => 'rigscope-object-name' ], (string)( $object['name'] ?? '' ) )
			. ( $group !== '' ? ' ' . Html::element( 'span', [ 'class' => 'rigscope-object-group' ],
				$ctx->msg( 'rigscope-facts-package-group' )->plaintextParams( $group )->text() ) : '' )
			. ' ' . $said->escaped() );
	}

	/** A list of items (HTML) with "and N more" when the package holds more than were kept. */
	private static function list( array $items, int $total, string $class, MessageLocalizer $ctx ): string {
		$items = array_slice( $items, 0, FactsTable::LIST_CAP );
		if ( $total > count( $items ) ) {
			$items[] = Html::element( 'li', [ 'class' => 'rigscope-facts-more' ],
				$ctx->msg( 'rigscope-facts-more' )->numParams( $total - count( $items ) )->text() );
		}
		return Html::rawElement( 'ul', $class !== '' ? [ 'class' => $class ] : [], implode( '', $items ) );
	}
}
