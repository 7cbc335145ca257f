<?php
/**
 * Files a model file plays with, found on the wiki as the viewer's families find them in a drop:
 *
 * - a UE1 half (`X_d.3d`, `X_a.3d`): the other half; the class script that imports the mesh,
 *   whatever its name (ImportIndex), else the script of its name; the textures that script names,
 *   when the wiki has them under those names;
 * - a skinned mesh (`.psk`, `.pskx`, `.pmd`): the animation of its name, and the animations that
 *   bind its bones when it is the only mesh of the wiki with those bones; a `.psk` also the class
 *   script that imports it (MODELIMPORT), with the textures and packages that script names;
 * - an animation (`.psa`): the mesh of its name, else the one mesh of the wiki whose bones it binds;
 * - a UE1 package (`.u`, `.utx`): the packages its texture slots name, by their names.
 *
 * Found by name or by the import index, never by reading other files.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;
use MediaWiki\Parser\Parser;
use MediaWiki\Title\Title;

class Companions {

	/** Animations found for a mesh by its bones, at most. */
	private const MAX_ANIMATIONS = 8;

	/** Meshes with an animation's bones looked at (more than one part among them: no choice). */
	private const MAX_MESHES = 10;

	/** Textures of a class script, at most (a script names a few; a whole mod's, some dozens). */
	private const MAX_TEXTURES = 24;

	/** @var array<string,File[]> companions found in this request, by file name and content */
	private static $found = [];

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
	 * Every name a file's companions could have by name.
	 *
	 * @param string $name
	 * @return string[]
	 */
	public static function candidates( string $name ): array {
		return array_merge( [], ...self::groups( $name ) );
	}

	/**
	 * Records the file's companions as files the page uses, those found and those its name would
	 * find: uploading one again, or one of that name later, renders the page again, and the
	 * companion's page lists the page. (A companion found by the index that arrives later renders
	 * the pages using the file through ImportIndex::indexUpload.)
	 *
	 * @param Parser $parser
	 * @param File $file
	 */
	public static function register( Parser $parser, File $file ): void {
		$names = array_merge( self::candidates( $file->getName() ), ...PackageFacts::usedNames( $file ) );
		foreach ( self::of( $file ) as $companion ) {
			$names[] = $companion->getName();
			// A package its script loads, uploaded later, renders the page again too.
			if ( preg_match( '/\.uc$/i', $companion->getName() ) ) {
				foreach ( ImportIndex::keysStored( $companion->getName(), ImportIndex::SCRIPT_PACKAGE ) as $package ) {
					array_push( $names, "$package.utx", "$package.u" );
				}
			}
		}
		foreach ( array_unique( $names ) as $name ) {
			$title = Title::makeTitleSafe( NS_FILE, $name );
			if ( $title ) {
				$parser->fetchFileAndTitle( $title );
			}
		}
	}

	/**
	 * @param File $file
	 * @return File[] companions that exist on this wiki, in the order the player takes them (the
	 *   other half, the script, its textures; a mesh's animations; an animation's mesh)
	 */
	public static function of( File $file ): array {
		$name = $file->getName();
		$cacheKey = $name . '|' . $file->getSha1() . '|' . $file->getTimestamp();
		if ( !isset( self::$found[$cacheKey] ) ) {
			if ( count( self::$found ) > 200 ) {
				self::$found = [];
			}
			self::$found[$cacheKey] = self::distinct( $file, self::find( $file ) );
		}
		return self::$found[$cacheKey];
	}

	/**
	 * Each animation once: the same one uploaded under two names (one found by name, one by its
	 * bones) would give the player every clip twice. (Textures of the same content under two names
	 * stay: a script may give each name its own slot.)
	 *
	 * @param File $file
	 * @param File[] $companions
	 * @return File[]
	 */
	private static function distinct( File $file, array $companions ): array {
		$seen = [ $file->getSha1() => true ];
		$out = [];
		foreach ( $companions as $c ) {
			$sha1 = (string)$c->getSha1();
			if ( in_array( $c->getMetadataItem( 'kind' ), [ 'psa', 'pssa' ], true ) && $sha1 !== '' ) {
				if ( isset( $seen[$sha1] ) ) {
					continue;
				}
				$seen[$sha1] = true;
			}
			$out[] = $c;
		}
		return $out;
	}

	/**
	 * Whether the file has something to play on this wiki: a mesh or a bundle by itself, an
	 * animation with a mesh, a UE1 half with its other half, a package that holds meshes.
	 *
	 * @param File $file
	 * @return bool
	 */
	public static function playable( File $file ): bool {
		$kind = $file->getMetadataItem( 'kind' );
		$name = $file->getName();
		if ( in_array( $kind, [ 'psa', 'pssa' ], true ) ) {
			foreach ( self::of( $file ) as $c ) {
				if ( !in_array( $c->getMetadataItem( 'kind' ), [ 'psa', 'pssa' ], true ) ) {
					return true;
				}
			}
			return false;
		}
		if ( $kind === 'upackage' ) {
			// A texture package is its list of textures (FactsTable); the player shows meshes.
			return PackageFacts::holdsMeshes( $file );
		}
		if ( in_array( $kind, [ 'ue1-data', 'ue1-anim' ], true ) || preg_match( '/_[da]\.3d$/i', $name ) ) {
			foreach ( self::of( $file ) as $c ) {
				if ( preg_match( '/_[da]\.3d$/i', $c->getName() ) ) {
					return true;
				}
			}
			return false;
		}
		return true;
	}

	/** Forgets what was found in this request (the index changed). */
	public static function forget(): void {
		self::$found = [];
	}

	/**
	 * @param File $file
	 * @return File[]
	 */
	private static function find( File $file ): array {
		$name = $file->getName();
		if ( preg_match( '/^(.*)_([da])\.3d$/i', $name, $m ) ) {
			return self::ofUe1Half( $name, $m[1], strtolower( $m[2] ) );
		}
		$kind = $file->getMetadataItem( 'kind' );
		if ( $kind === 'upackage' ) {
			return self::ofPackage( $file );
		}
		if ( preg_match( '/\.(psk|pskx|pmd)$/i', $name ) ) {
			return self::ofMesh( $file );
		}
		if ( preg_match( '/\.psa$/i', $name ) || in_array( $kind, [ 'psa', 'pssa' ], true ) ) {
			return self::ofAnimation( $file );
		}
		return [];
	}

	/**
	 * The packages a package's texture slots name, found by their names in any case (`Botpack.utx`,
	 * else `Botpack.u`): the player resolves the slots in them as in a drop of both.
	 */
	private static function ofPackage( File $file ): array {
		$uses = array_map( static function ( array $group ) {
			return pathinfo( $group[0], PATHINFO_FILENAME );
		}, PackageFacts::usedNames( $file ) );
		return array_values( array_filter( self::packagesNamed( $uses ), static function ( File $f ) use ( $file ) {
			return $f->getName() !== $file->getName();
		} ) );
	}

	/** The other half, the script that imports the mesh, and the textures that script names. */
	private static function ofUe1Half( string $name, string $base, string $half ): array {
		$other = $base . '_' . ( $half === 'd' ? 'a' : 'd' ) . substr( $name, -3 );
		$found = self::firstExisting( [ $other ] );
		if ( !$found ) {
			// The other half under another case (`Umsmarine_a.3d` beside `UMSMarine_d.3d`).
			$halves = array_filter( ImportIndex::filesWith( ImportIndex::UE1, [ mb_strtolower( $base ) ], 10 ),
				static function ( $n ) use ( $name, $half ) {
					return $n !== $name && strtolower( substr( $n, -5, 1 ) ) !== $half;
				} );
			$found = self::firstExisting( array_values( $halves ) );
		}
		$out = $found ? [ $found ] : [];

		// A script that imports the mesh, as the viewer pairs them: the one of the mesh's name when
		// it imports it, else the first by name; else the script of the mesh's name (Deus Ex
		// classes without #exec lines).
		$importing = ImportIndex::filesWith( ImportIndex::SCRIPT_MESH, [ mb_strtolower( $base ) ], 20 );
		$own = null;
		foreach ( $importing as $s ) {
			if ( strcasecmp( $s, $base . '.uc' ) === 0 ) {
				$own = $s;
			}
		}
		$script = self::firstExisting( array_merge( $own !== null ? [ $own ] : [], $importing ) )
			?: self::firstExisting( [ $base . '.uc' ] );
		return $script ? array_merge( $out, self::withScript( $script ) ) : $out;
	}

	/**
	 * A class script and what it names: the textures it imports or sets, and the packages it loads
	 * (`#exec OBJ LOAD FILE=…\Foo.utx`: `Foo.utx`, else `Foo.u`), when the wiki has them.
	 *
	 * @param File $script
	 * @return File[]
	 */
	private static function withScript( File $script ): array {
		$out = [ $script ];
		$skins = ImportIndex::keysStored( $script->getName(), ImportIndex::SCRIPT_SKIN );
		$textures = ImportIndex::filesWith( ImportIndex::TEXTURE, $skins, self::MAX_TEXTURES );
		foreach ( self::existing( $textures ) as $texture ) {
			$out[] = $texture;
		}
		$packages = array_slice( ImportIndex::keysStored( $script->getName(), ImportIndex::SCRIPT_PACKAGE ), 0, 8 );
		return array_merge( $out, self::packagesNamed( $packages ) );
	}

	/**
	 * The packages of the wiki with these names, any case (the import index keeps each package's
	 * name), a texture package first when both `Foo.utx` and `Foo.u` are there.
	 *
	 * @param string[] $names package names
	 * @return File[]
	 */
	private static function packagesNamed( array $names ): array {
		$files = ImportIndex::filesWith( ImportIndex::PACKAGE, array_map( 'mb_strtolower', $names ), 4 * count( $names ) );
		usort( $files, static function ( $a, $b ) {
			return [ strtolower( pathinfo( $a, PATHINFO_FILENAME ) ), !preg_match( '/\.utx$/i', $a ) ]
				<=> [ strtolower( pathinfo( $b, PATHINFO_FILENAME ) ), !preg_match( '/\.utx$/i', $b ) ];
		} );
		$out = [];
		foreach ( self::existing( $files ) as $file ) {
			$out[mb_strtolower( pathinfo( $file->getName(), PATHINFO_FILENAME ) )] ??= $file;
		}
		return array_values( $out );
	}

	/**
	 * The animation of the mesh's name, then those binding its bones when no other mesh has them
	 * (its own levels of detail aside).
	 */
	private static function ofMesh( File $file ): array {
		$out = [];
		foreach ( self::groups( $file->getName() ) as $group ) {
			$found = self::firstExisting( $group );
			if ( $found ) {
				$out[$found->getName()] = $found;
			}
		}
		// A UE2-era class script that imports this .psk (MODELIMPORT) places and textures it.
		if ( preg_match( '/\.pskx?$/i', $file->getName() ) ) {
			$script = self::firstExisting( ImportIndex::filesWith( ImportIndex::SCRIPT_PSK,
				[ mb_strtolower( $file->getName() ) ], 20 ) );
			foreach ( $script ? self::withScript( $script ) : [] as $c ) {
				$out[$c->getName()] ??= $c;
			}
		}
		$bones = ImportIndex::keysStored( $file->getName(), ImportIndex::MESH_BONES );
		if ( $bones && self::onePart( ImportIndex::filesWith( ImportIndex::MESH_BONES, $bones, self::MAX_MESHES ) ) !== null ) {
			$names = ImportIndex::filesWith( ImportIndex::ANIM_BONES, $bones, self::MAX_ANIMATIONS );
			foreach ( self::existing( $names ) as $anim ) {
				$out[$anim->getName()] ??= $anim;
			}
		}
		return array_values( $out );
	}

	/** The mesh of the animation's name, else the one mesh of the wiki with the bones it binds. */
	private static function ofAnimation( File $file ): array {
		foreach ( self::groups( $file->getName() ) as $group ) {
			$found = self::firstExisting( $group );
			if ( $found ) {
				return [ $found ];
			}
		}
		$mesh = self::meshByBones( $file );
		return $mesh ? [ $mesh ] : [];
	}

	/**
	 * The meshes of the wiki with the bones an animation binds (the first few, by name).
	 *
	 * @param File $file an animation
	 * @return string[] names
	 */
	public static function meshesFitting( File $file ): array {
		$bones = ImportIndex::keysStored( $file->getName(), ImportIndex::ANIM_BONES );
		return $bones ? ImportIndex::filesWith( ImportIndex::MESH_BONES, $bones, self::MAX_MESHES ) : [];
	}

	/** The one mesh with the animation's bones (the finest level of one mesh's levels of detail). */
	private static function meshByBones( File $file ): ?File {
		$mesh = self::onePart( self::meshesFitting( $file ) );
		return $mesh !== null ? self::firstExisting( [ $mesh ] ) : null;
	}

	/**
	 * When these meshes are one mesh, the name of its finest level, else null. Levels of detail are
	 * named as the viewer's Unreal family reads them (UE Viewer's X.psk and X_LodN.psk, FModel's
	 * X_LODN.psk): they share their bones and are one part, not a choice between meshes.
	 *
	 * @param string[] $names
	 * @return string|null
	 */
	private static function onePart( array $names ): ?string {
		$part = null;
		$best = null;
		$bestLevel = PHP_INT_MAX;
		foreach ( $names as $name ) {
			$stem = pathinfo( $name, PATHINFO_FILENAME );
			[ $p, $level ] = preg_match( '/^(.+)_lod(\d{1,2})$/i', $stem, $m ) ? [ $m[1], (int)$m[2] ] : [ $stem, 0 ];
			$p = mb_strtolower( $p );
			if ( $part !== null && $p !== $part ) {
				return null;
			}
			$part = $p;
			if ( $level < $bestLevel ) {
				$best = $name;
				$bestLevel = $level;
			}
		}
		return $best;
	}

	/**
	 * The first of these names that is a file of the wiki.
	 *
	 * @param string[] $names
	 * @return File|null
	 */
	private static function firstExisting( array $names ): ?File {
		$repo = MediaWikiServices::getInstance()->getRepoGroup();
		foreach ( $names as $candidate ) {
			$title = Title::makeTitleSafe( NS_FILE, $candidate );
			$other = $title ? $repo->findFile( $title ) : false;
			if ( $other && $other->exists() ) {
				return $other;
			}
		}
		return null;
	}

	/**
	 * The files of these names that exist, in order, looked up together.
	 *
	 * @param string[] $names
	 * @return File[]
	 */
	private static function existing( array $names ): array {
		if ( !$names ) {
			return [];
		}
		$found = MediaWikiServices::getInstance()->getRepoGroup()->findFiles( $names );
		$out = [];
		foreach ( $names as $n ) {
			$key = Title::makeTitleSafe( NS_FILE, $n );
			$f = $key ? ( $found[$key->getDBkey()] ?? $found[$n] ?? null ) : null;
			if ( $f && $f->exists() ) {
				$out[] = $f;
			}
		}
		return $out;
	}
}
