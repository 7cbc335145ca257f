<?php
/**
 * What each uploaded file names or binds, kept in the table `rigscope_import` (sql/tables.json),
 * so that a model file finds the files it plays with by an index, whatever their names:
 *
 * - a UE1 class script (`.uc`): the meshes it imports (`#exec MESH IMPORT … DATAFILE=X_d.3d`, the
 *   viewer's rule: a script imports X when it names `X_d.3d`) and the textures it names
 *   (`#exec TEXTURE IMPORT NAME=… FILE=…`, `MESHMAP SETTEXTURE`, `Skin`, `MultiSkins`);
 *   A UE2-era script (UT v436 on) imports an ActorX mesh instead (`#exec MESH MODELIMPORT …
 *   MODELFILE=Models\X.psk`) and may take textures from packages it loads (`#exec OBJ LOAD
 *   FILE=…\Foo.utx`): the `.psk` file names and the package names are kept too;
 * - a UE1 half (`X_d.3d`, `X_a.3d`): its mesh name X;
 * - an ActorX mesh (`.psk`, `.pskx`): its file name, for the script that imports it;
 * - a UE1 package (`.u`, `.utx`): its name (the file's, as the engine names packages) and the
 *   packages its meshes take textures from (`package.uses` of `rigscope inspect`);
 * - a texture (`.pcx`, `.bmp`, …): its name without extension, as the viewer matches textures;
 * - a skinned mesh and an animation: the bone set it has or binds (`bindKey` of `rigscope
 *   inspect`: a hash of the sorted bone names, or a bone count for animations bound by index).
 *
 * Keys are lower case: the viewer matches these names without regard to case. Rows are written
 * on upload and replaced on re-upload (Hooks::onFileUpload), removed on deletion, and written for
 * files already on the wiki by maintenance/rebuildImportIndex.php.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\MediaWikiServices;
use MediaWiki\Title\Title;
use Wikimedia\Rdbms\IDatabase;

class ImportIndex {

	public const TABLE = 'rigscope_import';

	/** A mesh a class script imports: the X of its `X_d.3d`. */
	public const SCRIPT_MESH = 'script-mesh';
	/** A texture a class script names (imported name or file name without extension). */
	public const SCRIPT_SKIN = 'script-skin';
	/** An ActorX mesh a class script imports (MODELIMPORT): its file name, `x.psk`. */
	public const SCRIPT_PSK = 'script-psk';
	/** A package a class script loads (OBJ LOAD): its name, `foo` of `Foo.utx`. */
	public const SCRIPT_PACKAGE = 'script-package';
	/** An ActorX mesh's own file name (`x.psk`), as scripts name it. */
	public const PSK = 'psk';
	/** A UE1 package's own name, `foo` of `Foo.utx`. */
	public const PACKAGE = 'package';
	/** A package a UE1 package's texture slots name. */
	public const PACKAGE_USES = 'package-uses';
	/** A UE1 half's mesh name: X of `X_d.3d` and `X_a.3d`. */
	public const UE1 = 'ue1';
	/** A texture file's name without extension. */
	public const TEXTURE = 'texture';
	/** The bone set of a skinned mesh, and the one an animation binds. */
	public const MESH_BONES = 'mesh-bones';
	public const ANIM_BONES = 'anim-bones';

	/**
	 * Files indexed as textures: what UE1 scripts import (PCX, BMP) and what modders convert them
	 * to for the viewer (TGA, DDS, PNG). Not JPEG: a wiki's photos would fill the table for nothing.
	 */
	private const TEXTURE_EXTENSIONS = [ 'pcx', 'bmp', 'tga', 'dds', 'png' ];

	/** A class script is a few KiB of text; a larger `.uc` is not read. */
	private const MAX_SCRIPT_BYTES = 1 << 20;

	/** Keys kept per file (a script of a whole mod's meshes names some dozens). */
	private const MAX_KEYS = 200;

	/** Keys are cut to the column's length. */
	private const MAX_KEY_BYTES = 255;

	/** @var bool|null whether the table is there (update.php run since install) */
	private static $available = null;

	/** Whether the wiki has the table: before update.php, lookups find nothing and writes wait. */
	public static function available(): bool {
		if ( self::$available === null ) {
			try {
				self::$available = self::db( DB_REPLICA )->tableExists( self::TABLE, __METHOD__ );
			} catch ( \Exception $e ) {
				self::$available = false;
			}
		}
		return self::$available;
	}

	/**
	 * Whether a file of this name can have rows (a script, a UE1 half, a texture, a mesh, an
	 * animation or a package), by its extension: the others need not be read.
	 */
	public static function concerns( string $name ): bool {
		$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
		return in_array( $ext, [ 'uc', '3d', 'psk', 'pskx', 'pmd', 'psa', 'u', 'utx' ], true )
			|| in_array( $ext, self::TEXTURE_EXTENSIONS, true );
	}

	private static function db( int $index ): IDatabase {
		return MediaWikiServices::getInstance()->getDBLoadBalancer()->getConnection( $index );
	}

	/**
	 * The rows a file gives.
	 *
	 * @param File $file a local file that exists
	 * @return array<string,string[]> kind => keys
	 */
	public static function keysOf( File $file ): array {
		$name = $file->getName();
		$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
		$keys = [];
		if ( $ext === 'uc' ) {
			$text = self::readText( $file );
			if ( $text !== null ) {
				$script = self::readScript( $text );
				$keys[self::SCRIPT_MESH] = $script['meshes'];
				$keys[self::SCRIPT_SKIN] = $script['skins'];
				$keys[self::SCRIPT_PSK] = $script['psks'];
				$keys[self::SCRIPT_PACKAGE] = $script['packages'];
			}
		} elseif ( preg_match( '/^(.+)_[da]\.3d$/i', $name, $m ) ) {
			$keys[self::UE1] = [ mb_strtolower( $m[1] ) ];
		} elseif ( $ext === 'psk' || $ext === 'pskx' ) {
			$keys[self::PSK] = [ mb_strtolower( $name ) ];
		} elseif ( $ext === 'u' || $ext === 'utx' ) {
			$keys[self::PACKAGE] = [ mb_strtolower( pathinfo( $name, PATHINFO_FILENAME ) ) ];
			$package = RigscopeHandler::isModel( $file ) ? $file->getMetadataItem( 'package' ) : null;
			$uses = is_array( $package ) ? array_filter( (array)( $package['uses'] ?? [] ), 'is_string' ) : [];
			$keys[self::PACKAGE_USES] = array_map( 'mb_strtolower', $uses );
		} elseif ( in_array( $ext, self::TEXTURE_EXTENSIONS, true ) ) {
			$keys[self::TEXTURE] = [ mb_strtolower( pathinfo( $name, PATHINFO_FILENAME ) ) ];
		}
		$kind = RigscopeHandler::isModel( $file ) ? $file->getMetadataItem( 'kind' ) : null;
		if ( in_array( $kind, [ 'psk', 'pmd', 'psa', 'pssa' ], true ) ) {
			$bindKey = self::bindKey( $file, $kind );
			if ( $bindKey !== null ) {
				$keys[in_array( $kind, [ 'psa', 'pssa' ], true ) ? self::ANIM_BONES : self::MESH_BONES] = [ $bindKey ];
			}
		}
		foreach ( $keys as $k => $list ) {
			$list = array_values( array_unique( array_filter( array_map( static function ( $key ) {
				return substr( (string)$key, 0, self::MAX_KEY_BYTES );
			}, $list ), 'strlen' ) ) );
			if ( $list ) {
				$keys[$k] = array_slice( $list, 0, self::MAX_KEYS );
			} else {
				unset( $keys[$k] );
			}
		}
		return $keys;
	}

	/**
	 * The bone set a mesh has or an animation binds: from the file's facts (`bindKey` of `rigscope
	 * inspect`), else by asking `rigscope inspect` now (facts stored before the field was kept).
	 */
	private static function bindKey( File $file, string $kind ): ?string {
		$key = $file->getMetadataItem( 'bindKey' );
		if ( is_string( $key ) && $key !== '' ) {
			return $key;
		}
		$path = $file->getLocalRefPath();
		if ( !$path ) {
			return null;
		}
		$records = Inspector::inspect( $path, 'model.' . ( $kind === 'pssa' ? 'psa' : $kind ) );
		$key = $records[0]['bindKey'] ?? null;
		return is_string( $key ) && $key !== '' ? $key : null;
	}

	/** A text file's content, when it is small enough to be a class script. */
	private static function readText( File $file ): ?string {
		$path = $file->getLocalRefPath();
		if ( !$path || !is_file( $path ) || filesize( $path ) > self::MAX_SCRIPT_BYTES ) {
			return null;
		}
		$text = file_get_contents( $path );
		return is_string( $text ) ? $text : null;
	}

	/**
	 * What a UE1 class script imports and names.
	 *
	 * @param string $text
	 * @return array{meshes: string[], skins: string[], psks: string[], packages: string[]} lower
	 *   case: mesh names (X of `X_d.3d`), texture names (imported names and file names without
	 *   folder or extension), `.psk` files it MODELIMPORTs and packages it OBJ LOADs, in order
	 */
	public static function readScript( string $text ): array {
		// The viewer's rule (web/src/families/ue1.js): a script imports mesh X when it names X_d.3d
		// anywhere, whatever the mesh is called inside (`MESH=UMSMarine DATAFILE=…\UMSMarine_d.3d`).
		preg_match_all( '/([^\s\\\\\/=:;,"\'()]+)_d\.3d(?![A-Za-z0-9_])/i', $text, $m );
		$meshes = array_map( 'mb_strtolower', $m[1] );
		$skins = [];
		$psks = [];
		$packages = [];
		foreach ( preg_split( '/\R/', $text ) as $line ) {
			$line = trim( $line );
			if ( $line === '' || str_starts_with( $line, '//' ) ) {
				continue;
			}
			if ( preg_match( '/^#exec\s+texture\s+import\b/i', $line ) ) {
				foreach ( [ 'NAME', 'FILE' ] as $arg ) {
					$value = self::argument( $line, $arg );
					if ( $value !== null ) {
						$skins[] = self::textureName( $value );
					}
				}
			} elseif ( preg_match( '/^#exec\s+mesh\s+modelimport\b/i', $line ) ) {
				$file = self::argument( $line, 'MODELFILE' );
				if ( $file !== null ) {
					$psks[] = mb_strtolower( preg_replace( '#^.*[\\\\/]#', '', $file ) );
				}
			} elseif ( preg_match( '/^#exec\s+obj\s+load\b/i', $line ) ) {
				$file = self::argument( $line, 'FILE' );
				if ( $file !== null ) {
					$packages[] = mb_strtolower( pathinfo( preg_replace( '#^.*[\\\\/]#', '', $file ), PATHINFO_FILENAME ) );
				}
			} elseif ( preg_match( '/^#exec\s+meshmap\s+settexture\b/i', $line ) ) {
				$value = self::argument( $line, 'TEXTURE' );
				if ( $value !== null ) {
					$skins[] = self::textureName( $value );
				}
			} elseif ( preg_match( '/^(?:Skin|MultiSkins\s*\(\s*\d+\s*\))\s*=\s*(?:Texture\s*)?[\'"]?([^\'"\s]+)/i', $line, $s ) ) {
				$skins[] = self::textureName( $s[1] );
			}
		}
		$clean = static function ( array $names ): array {
			return array_values( array_unique( array_filter( $names, 'strlen' ) ) );
		};
		return [ 'meshes' => $clean( $meshes ), 'skins' => $clean( $skins ), 'psks' => $clean( $psks ),
			'packages' => $clean( $packages ) ];
	}

	/** An `#exec` argument's value (`NAME=X`, `FILE="a b.pcx"`), or null. */
	private static function argument( string $line, string $name ): ?string {
		if ( preg_match( '/\b' . $name . '\s*=\s*(?:"([^"]*)"|([^\s"]+))/i', $line, $m ) ) {
			$value = ( $m[1] ?? '' ) !== '' ? $m[1] : ( $m[2] ?? '' );
			return $value !== '' ? $value : null;
		}
		return null;
	}

	/** A texture reference as the viewer keys it: no package, folder or extension; lower case. */
	private static function textureName( string $ref ): string {
		$ref = preg_replace( '#^.*[\\\\/]#', '', $ref );
		// `Package.Group.Name` names the texture Name; `name.pcx` is a file.
		if ( preg_match( '/^(.*)\.(pcx|bmp|tga|dds|png|jpe?g)$/i', $ref, $m ) ) {
			$ref = $m[1];
		} elseif ( str_contains( $ref, '.' ) ) {
			$ref = substr( $ref, strrpos( $ref, '.' ) + 1 );
		}
		return mb_strtolower( $ref );
	}

	/**
	 * Writes a file's rows in place of those it had.
	 *
	 * @param File $file
	 * @return bool whether the table was there to write
	 */
	public static function update( File $file ): bool {
		if ( !self::available() ) {
			return false;
		}
		$name = $file->getName();
		$rows = [];
		foreach ( self::keysOf( $file ) as $kind => $keys ) {
			foreach ( $keys as $key ) {
				$rows[] = [ 'ri_file' => $name, 'ri_kind' => $kind, 'ri_key' => $key ];
			}
		}
		$dbw = self::db( DB_PRIMARY );
		$dbw->delete( self::TABLE, [ 'ri_file' => $name ], __METHOD__ );
		if ( $rows ) {
			$dbw->insert( self::TABLE, $rows, __METHOD__, [ 'IGNORE' ] );
		}
		return true;
	}

	/** Removes the rows of a file gone (deleted, or moved to another name). */
	public static function remove( string $name ): void {
		if ( self::available() ) {
			self::db( DB_PRIMARY )->delete( self::TABLE, [ 'ri_file' => $name ], __METHOD__ );
		}
	}

	/**
	 * Names of the files with one of these keys, sorted.
	 *
	 * @param string $kind
	 * @param string[] $keys
	 * @param int $limit
	 * @return string[]
	 */
	public static function filesWith( string $kind, array $keys, int $limit = 50 ): array {
		$keys = array_values( array_filter( $keys, 'strlen' ) );
		if ( !$keys || !self::available() ) {
			return [];
		}
		$names = self::db( DB_REPLICA )->newSelectQueryBuilder()
			->select( 'ri_file' )
			->distinct()
			->from( self::TABLE )
			->where( [ 'ri_kind' => $kind, 'ri_key' => $keys ] )
			->orderBy( 'ri_file' )
			->limit( $limit )
			->caller( __METHOD__ )
			->fetchFieldValues();
		return array_map( 'strval', $names );
	}

	/**
	 * A file's keys of one kind, as stored.
	 *
	 * @param string $name
	 * @param string $kind
	 * @return string[]
	 */
	public static function keysStored( string $name, string $kind ): array {
		if ( !self::available() ) {
			return [];
		}
		return array_map( 'strval', self::db( DB_REPLICA )->newSelectQueryBuilder()
			->select( 'ri_key' )
			->from( self::TABLE )
			->where( [ 'ri_file' => $name, 'ri_kind' => $kind ] )
			->limit( self::MAX_KEYS )
			->caller( __METHOD__ )
			->fetchFieldValues() );
	}

	/**
	 * The files whose companions a file's rows change: the meshes a script imports (and those
	 * whose script names a texture), the meshes and animations of a bone set. Their pages and the
	 * pages showing them are rendered again when the file arrives, changes or goes.
	 *
	 * @param string $name the file
	 * @param array<string,string[]> $keys its rows, by kind
	 * @return string[] file names, the file itself left out
	 */
	public static function dependents( string $name, array $keys ): array {
		$out = [];
		$meshes = $keys[self::SCRIPT_MESH] ?? [];
		if ( isset( $keys[self::TEXTURE] ) ) {
			foreach ( self::filesWith( self::SCRIPT_SKIN, $keys[self::TEXTURE], 20 ) as $script ) {
				$meshes = array_merge( $meshes, self::keysStored( $script, self::SCRIPT_MESH ) );
			}
		}
		if ( $meshes ) {
			$out = array_merge( $out, self::filesWith( self::UE1, array_unique( $meshes ), 100 ) );
		}
		$psks = $keys[self::SCRIPT_PSK] ?? [];
		if ( isset( $keys[self::PACKAGE] ) ) {
			// A package arriving: the packages that take textures from it, and the meshes of the
			// scripts that load it.
			$out = array_merge( $out, self::filesWith( self::PACKAGE_USES, $keys[self::PACKAGE], 100 ) );
			foreach ( self::filesWith( self::SCRIPT_PACKAGE, $keys[self::PACKAGE], 20 ) as $script ) {
				$psks = array_merge( $psks, self::keysStored( $script, self::SCRIPT_PSK ) );
			}
		}
		if ( $psks ) {
			$out = array_merge( $out, self::filesWith( self::PSK, array_unique( $psks ), 100 ) );
		}
		foreach ( [ self::MESH_BONES, self::ANIM_BONES ] as $kind ) {
			if ( isset( $keys[$kind] ) ) {
				$out = array_merge( $out,
					self::filesWith( self::MESH_BONES, $keys[$kind], 50 ),
					self::filesWith( self::ANIM_BONES, $keys[$kind], 50 ) );
			}
		}
		return array_values( array_diff( array_unique( $out ), [ $name ] ) );
	}

	/**
	 * The rows a file has now, by kind, as stored (before it is written again or removed).
	 *
	 * @param string $name
	 * @return array<string,string[]>
	 */
	public static function stored( string $name ): array {
		if ( !self::available() ) {
			return [];
		}
		$out = [];
		$rows = self::db( DB_PRIMARY )->newSelectQueryBuilder()
			->select( [ 'ri_kind', 'ri_key' ] )
			->from( self::TABLE )
			->where( [ 'ri_file' => $name ] )
			->caller( __METHOD__ )
			->fetchResultSet();
		foreach ( $rows as $row ) {
			$out[(string)$row->ri_kind][] = (string)$row->ri_key;
		}
		return $out;
	}

	/**
	 * Pages showing these files are rendered again (their companions changed), and the files' own
	 * pages: as MediaWiki does for the pages using a file uploaded again.
	 *
	 * @param string[] $names
	 */
	public static function touch( array $names ): void {
		$jobs = [];
		foreach ( array_slice( $names, 0, 100 ) as $name ) {
			$title = Title::makeTitleSafe( NS_FILE, $name );
			if ( !$title ) {
				continue;
			}
			$title->invalidateCache();
			// Not newForBacklinks: its root timestamp (this request's second) makes the job skip a
			// page touched in that same second, an edit or a render that came just before, whose
			// cached render would then never show the new companion. Without one, the job touches
			// the pages not touched since it runs.
			if ( class_exists( \HTMLCacheUpdateJob::class ) ) {
				$jobs[] = new \HTMLCacheUpdateJob( $title,
					[ 'table' => 'imagelinks', 'recursive' => true, 'causeAction' => 'rigscope-companions' ] );
			}
			// And their links: the new companion becomes a file those pages use (Companions::register),
			// as core does for the pages using a file that is uploaded.
			if ( class_exists( \RefreshLinksJob::class ) ) {
				$jobs[] = new \RefreshLinksJob( $title, [ 'table' => 'imagelinks', 'recursive' => true ]
					+ \Job::newRootJobParams( 'refreshlinks:imagelinks:' . $title->getPrefixedDBkey() )
					+ [ 'causeAction' => 'rigscope-companions' ] );
			}
		}
		if ( $jobs ) {
			MediaWikiServices::getInstance()->getJobQueueGroup()->lazyPush( $jobs );
		}
	}

	/**
	 * A file arrived or changed: its rows are written, and the files whose companions that changes
	 * (before and after) are rendered again.
	 */
	public static function indexUpload( File $file ): void {
		if ( !self::concerns( $file->getName() ) || !self::available() ) {
			return;
		}
		$name = $file->getName();
		$before = self::stored( $name );
		self::update( $file );
		$after = self::stored( $name );
		self::touch( array_unique( array_merge( self::dependents( $name, $before ), self::dependents( $name, $after ) ) ) );
	}

	/** A file gone: its rows are removed, and the files it was a companion of rendered again. */
	public static function indexRemoval( string $name ): void {
		if ( !self::concerns( $name ) || !self::available() ) {
			return;
		}
		$before = self::stored( $name );
		self::remove( $name );
		self::touch( self::dependents( $name, $before ) );
	}
}
