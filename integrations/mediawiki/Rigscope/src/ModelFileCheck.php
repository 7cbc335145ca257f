<?php
/**
 * What an uploaded file is, read from its first bytes: the same magic and header checks as the
 * decoders' `detectFormat` (wasm/src/formats/detect.cpp) and the first checks of each decoder,
 * and nothing more. The whole file is read by the decoders themselves (`rigscope inspect`) when
 * $wgRigscopeNode is set.
 *
 * A refusal is a sentence shaped like the decoders' own errors: the format, the file, the field
 * and the byte offset ("PSK Grunt.psk: file does not start with an ACTRHEAD chunk (found "GIF8")
 * (at byte 0)").
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

class ModelFileCheck {

	/** The 8-byte signature of a `.rigscope` bundle (PNG-style: high bit, name, CR LF, ^Z, LF). */
	public const BUNDLE_SIGNATURE = "\x89RSB\r\n\x1a\n";

	/** MIME types, one per kind of file this extension opens. */
	public const MIME_TYPES = [
		'bundle' => 'application/x-rigscope',
		'psk' => 'model/x-actorx-psk',
		'psa' => 'model/x-actorx-psa',
		'pmd' => 'model/x-0ad-pmd',
		'pssa' => 'model/x-0ad-pssa',
		'psg' => 'model/x-renderware-psg',
		'ue1-data' => 'model/x-unreal-3d',
		'ue1-anim' => 'model/x-unreal-3d',
		'uc' => 'text/x-unrealscript',
		'upackage' => 'application/x-unreal-package',
	];

	/** The file extensions each MIME type is uploaded with. */
	public const EXTENSIONS = [
		'application/x-rigscope' => [ 'rigscope' ],
		'model/x-actorx-psk' => [ 'psk', 'pskx' ],
		'model/x-actorx-psa' => [ 'psa' ],
		'model/x-0ad-pmd' => [ 'pmd' ],
		'model/x-0ad-pssa' => [ 'psa' ],
		'model/x-renderware-psg' => [ 'psg' ],
		'model/x-unreal-3d' => [ '3d' ],
		'text/x-unrealscript' => [ 'uc' ],
		'application/x-unreal-package' => [ 'u', 'utx' ],
	];

	/**
	 * Textures that models name (UE1 skins are `.pcx`, ActorX materials often `.dds`): MediaWiki
	 * knows neither, so without these types their pages warn "may contain malicious code". They are
	 * bitmaps, typed by their magic and checked like the models (MIME type => [ media type, its
	 * other names, extensions ]).
	 */
	public const TEXTURE_TYPES = [
		'image/vnd.zbrush.pcx' => [ 'BITMAP', [ 'image/x-pcx' ], [ 'pcx' ] ],
		'image/x-dds' => [ 'BITMAP', [ 'image/vnd-ms.dds', 'image/vnd.ms-dds' ], [ 'dds' ] ],
	];

	/** What each file extension may hold (kinds, as `detectFormat` names them). */
	private const KINDS_BY_EXTENSION = [
		'rigscope' => [ 'bundle' ],
		'psk' => [ 'psk' ],
		'pskx' => [ 'psk' ],
		'psa' => [ 'psa', 'pssa' ],
		'pmd' => [ 'pmd' ],
		'psg' => [ 'psg' ],
		'3d' => [ 'ue1-data', 'ue1-anim' ],
		'uc' => [ 'uc' ],
		'u' => [ 'upackage' ],
		'utx' => [ 'upackage' ],
	];

	/** The format names the decoders put first in their messages. */
	private const FORMAT_NAMES = [
		'rigscope' => 'Rigscope bundle',
		'psk' => 'PSK',
		'pskx' => 'PSK',
		'psa' => 'PSA',
		'pmd' => 'PMD',
		'psg' => 'PSG',
		'3d' => 'UE1',
		'uc' => 'UnrealScript',
		'u' => 'UE1 package',
		'utx' => 'UE1 package',
	];

	/** The tag a UE1 package starts with (ue1-package.md §3: DWORD 0x9E2A83C1, little-endian). */
	public const PACKAGE_TAG = "\xC1\x83\x2A\x9E";

	/** The first line of a Git LFS pointer: a repository's stand-in for a file kept elsewhere. */
	public const LFS_POINTER = 'version https://git-lfs.github.com/spec/v1';

	/** Bytes of a file read for its check: a bundle's header may need more (read as it inflates). */
	public const HEAD_BYTES = 65536;

	/** A bundle's header: at most 4 MiB of JSON and 20,000 files (web/src/core/pack.js). */
	private const MAX_BUNDLE_HEADER = 4 * 1024 * 1024;
	private const MAX_BUNDLE_FILES = 20000;
	/** Compressed bytes read to find a bundle's header: deflate cannot expand more than 1032:1. */
	private const MAX_BUNDLE_READ = 8 * 1024 * 1024;

	/**
	 * @return string[] every file extension this extension opens
	 */
	public static function fileExtensions(): array {
		return array_keys( self::KINDS_BY_EXTENSION );
	}

	/**
	 * The kind of a file, from its content alone (its extension only settles UE1 halves whose size
	 * does not add up, as `detectFormat` does).
	 *
	 * @param string $path
	 * @param string $name the file's name (for UE1 `_d.3d` / `_a.3d`)
	 * @return string|null a key of MIME_TYPES, or null
	 */
	public static function detect( string $path, string $name = '' ): ?string {
		$head = self::readHead( $path );
		if ( $head === null ) {
			return null;
		}
		return self::detectHead( $head, (int)filesize( $path ), $name );
	}

	/**
	 * @param string $head the file's first bytes (up to HEAD_BYTES)
	 * @param int $fileSize
	 * @param string $name
	 * @return string|null
	 */
	public static function detectHead( string $head, int $fileSize, string $name = '' ): ?string {
		if ( str_starts_with( $head, self::BUNDLE_SIGNATURE ) ) {
			return 'bundle';
		}
		// ActorX files open with a 32-byte chunk header whose id names the file kind.
		if ( str_starts_with( $head, 'ACTRHEAD' ) ) {
			return 'psk';
		}
		if ( str_starts_with( $head, 'ANIMHEAD' ) ) {
			return 'psa';
		}
		if ( str_starts_with( $head, 'PSMD' ) ) {
			return 'pmd';
		}
		if ( str_starts_with( $head, 'PSSA' ) ) {
			return 'pssa';
		}
		if ( str_starts_with( $head, "\x89RW4" ) ) {
			return 'psg';
		}
		if ( str_starts_with( $head, self::PACKAGE_TAG ) ) {
			return 'upackage';
		}
		// UE1 files have no magic: their sizes are exact multiples of their records.
		$lower = strtolower( $name );
		$size = strlen( $head );
		if ( $size >= 48 ) {
			$numPolys = self::u16( $head, 0 );
			if ( $numPolys !== 0 && 48 + 16 * $numPolys === $fileSize && self::u16( $head, 2 ) >= 3
				&& !str_ends_with( $lower, '_a.3d' )
			) {
				return 'ue1-data';
			}
		}
		if ( $size >= 4 ) {
			$frames = self::u16( $head, 0 );
			$frameSize = self::u16( $head, 2 );
			if ( $frames > 0 && $frameSize > 0 && 4 + $frames * $frameSize === $fileSize
				&& !str_ends_with( $lower, '_d.3d' )
			) {
				return 'ue1-anim';
			}
			// Named as one and with a plausible header, a UE1 file whose size does not add up is still
			// claimed: the decoder then says which count the bytes cannot hold.
			if ( str_ends_with( $lower, '_a.3d' ) && $frames > 0 && $frameSize > 0 && $frameSize % 4 === 0 ) {
				return 'ue1-anim';
			}
			if ( str_ends_with( $lower, '_d.3d' ) && $frames > 0 && $frameSize >= 3 ) {
				return 'ue1-data';
			}
		}
		// A UE1 class script: by its name, or by the line that imports a mesh.
		if ( str_ends_with( $lower, '.uc' ) || stripos( $head, '#exec mesh' ) !== false ) {
			return 'uc';
		}
		return null;
	}

	/**
	 * Checks that a file holds what its extension says, as far as its header tells.
	 *
	 * @param string $path the file on disk
	 * @param string $name its name (the wiki's file name)
	 * @return array{kind:?string,error:?string,header:array} kind (a key of MIME_TYPES) when it
	 *   holds what its extension says; else error, a sentence naming the file, the field and the byte
	 */
	public static function check( string $path, string $name ): array {
		$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
		$format = self::FORMAT_NAMES[$ext] ?? strtoupper( $ext );
		$refuse = static function ( int $at, string $what ) use ( $format, $name ): array {
			return [ 'kind' => null, 'error' => "$format $name: $what (at byte $at)", 'header' => [] ];
		};
		if ( !isset( self::KINDS_BY_EXTENSION[$ext] ) ) {
			return $refuse( 0, ".$ext is not a model file extension" );
		}
		$head = self::readHead( $path );
		$fileSize = (int)@filesize( $path );
		if ( $head === null || $head === '' ) {
			return $refuse( 0, 'the file is empty' );
		}
		$lfs = self::lfsPointer( $head );
		if ( $lfs !== null ) {
			return $refuse( 0, $lfs );
		}
		$kind = self::detectHead( $head, $fileSize, $name );
		$expected = self::KINDS_BY_EXTENSION[$ext];
		if ( $kind === null || !in_array( $kind, $expected, true ) ) {
			return $refuse( 0, self::notWhat( $ext, $head, $fileSize, $kind ) );
		}
		$html = self::browserWouldRun( $path, $head, self::MIME_TYPES[$kind], $ext );
		if ( $html !== null ) {
			return $refuse( $html[0], $html[1] );
		}
		switch ( $kind ) {
			case 'bundle':
				return self::checkBundle( $path, $name, $refuse );
			case 'psk':
			case 'psa':
				return self::checkActorXHead( $head, $kind, $refuse );
			case 'pmd':
			case 'pssa':
				return self::checkFileHeader( $head, $fileSize, $kind, $refuse );
			case 'psg':
				return self::checkArenaHeader( $head, $refuse );
			case 'uc':
				return self::checkScript( $path, $refuse );
			case 'upackage':
				return self::checkPackageHeader( $head, $fileSize, $refuse );
			default:
				return self::checkUnrealHeader( $head, $fileSize, $kind, $refuse );
		}
	}

	/**
	 * Whether a browser could take the file for a page: UE1 files and scripts have no magic, so
	 * their first bytes may be anything, `<p><svg onload=…>` included, and a file served without a
	 * type (or a browser that sniffs) would run it on the wiki's domain.
	 *
	 * Two checks: MediaWiki's own (UploadBase::detectScript, with this extension's MIME type, so that
	 * a script is read whole as text), and the HTML patterns of WHATWG MIME Sniffing (§7.1, "identify
	 * an unknown MIME type") in the first 1,445 bytes. Those patterns match where browsers match
	 * them: at the start, after white space (Chromium's and Firefox's sniffers do the same). Matching
	 * them anywhere would refuse real files (an UnrealScript class that writes a `<b>` in a string,
	 * floats that happen to read `<a `), and old Internet Explorer's look anywhere is what
	 * detectScript and core's $wgVerifyMimeTypeIE check already cover.
	 *
	 * @param string $path
	 * @param string $head the file's first bytes
	 * @param string $mime the type this extension gives the file
	 * @param string $ext
	 * @return array{0:int,1:string}|null [ byte offset, why ] when refused
	 */
	public static function browserWouldRun( string $path, string $head, string $mime, string $ext ): ?array {
		$sniffed = self::sniffedAsHtml( substr( $head, 0, self::SNIFF_BYTES ) );
		// What was found is named without its angle brackets: API clients that ask for plain text
		// get messages with anything tag-like stripped.
		if ( $sniffed !== null ) {
			[ $at, $found ] = $sniffed;
			return [ $at, 'starts with ' . self::markupNamed( $found ) . ', which a browser takes for HTML '
				. '(a file a browser could open as a web page is not accepted as a model)' ];
		}
		if ( class_exists( \UploadBase::class ) && \UploadBase::detectScript( $path, $mime, $ext ) ) {
			[ $at, $found ] = self::scriptMarker( $path, $mime, $head );
			return [ $at, ( $found !== '' ? 'holds ' . self::markupNamed( $found ) . ', ' : '' )
				. 'HTML or script that MediaWiki refuses in uploads (a browser could run it)' ];
		}
		return null;
	}

	/** `<p>` as 'an HTML "p" tag', `<!--` as 'an HTML comment', and so on. */
	private static function markupNamed( string $found ): string {
		$lower = strtolower( $found );
		if ( str_starts_with( $lower, '<!--' ) ) {
			return 'an HTML comment';
		}
		if ( str_starts_with( $lower, '<?xml' ) ) {
			return 'an XML declaration';
		}
		if ( str_starts_with( $lower, '<!doctype' ) ) {
			return 'an HTML doctype';
		}
		if ( preg_match( '/^<([a-z0-9]+)/i', $found, $m ) ) {
			return 'an HTML "' . $m[1] . '" tag';
		}
		return '"' . self::shown( str_replace( [ '<', '>' ], '', $found ) ) . '"';
	}

	/** Bytes a browser sniffs to decide whether a file is HTML (WHATWG MIME Sniffing: a resource header). */
	public const SNIFF_BYTES = 1445;

	/**
	 * WHATWG's HTML patterns (each followed by a tag-terminating byte), with `<svg` (an SVG document
	 * runs script as well); `<!--` and `<?xml` match whatever follows them.
	 */
	private const HTML_PATTERNS = [ '<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div',
		'<font', '<table', '<a', '<style', '<title', '<b', '<body', '<br', '<p', '<svg' ];
	private const OPEN_PATTERNS = [ '<!--', '<?xml' ];

	/**
	 * @param string $head
	 * @return array{0:int,1:string}|null the offset and the bytes that matched
	 */
	public static function sniffedAsHtml( string $head ): ?array {
		$at = str_starts_with( $head, "\xEF\xBB\xBF" ) ? 3 : 0;
		// Browsers skip white space first (TAB, LF, FF, CR, SPACE).
		$at += strspn( $head, "\t\n\x0c\r ", $at );
		foreach ( self::OPEN_PATTERNS as $pattern ) {
			if ( substr_compare( $head, $pattern, $at, strlen( $pattern ), true ) === 0 ) {
				return [ $at, substr( $head, $at, strlen( $pattern ) ) ];
			}
		}
		foreach ( self::HTML_PATTERNS as $pattern ) {
			$end = $at + strlen( $pattern );
			// Space and `>` terminate a tag for WHATWG; other white space and `/` are refused too.
			if ( $end < strlen( $head ) && substr_compare( $head, $pattern, $at, strlen( $pattern ), true ) === 0
				&& strpos( " >\t\n\x0c\r/", $head[$end] ) !== false
			) {
				return [ $at, substr( $head, $at, strlen( $pattern ) + 1 ) ];
			}
		}
		return null;
	}

	/**
	 * Where detectScript's markers are, for the message (it says only yes or no): the first of the
	 * tags and script words it looks for, else byte 0.
	 *
	 * @return array{0:int,1:string} offset and what is there
	 */
	private static function scriptMarker( string $path, string $mime, string $head ): array {
		$text = str_starts_with( $mime, 'text/' ) ? (string)@file_get_contents( $path ) : substr( $head, 0, 1024 );
		if ( preg_match( '/<!doctype *x?html|<(?:body|head|html|script)|type\s*=\s*[\'"]?\s*(?:\w*\/)?(?:ecma|java)'
			. '|(?:ecma|java)script:/i', $text, $m, PREG_OFFSET_CAPTURE )
		) {
			return [ $m[0][1], substr( $m[0][0], 0, 40 ) ];
		}
		return [ 0, '' ];
	}

	/**
	 * @param string $head a file's first bytes
	 * @return string|null a key of TEXTURE_TYPES when they are a PCX or DDS header
	 */
	public static function textureType( string $head ): ?string {
		if ( strlen( $head ) >= 128 && self::pcxHeaderProblem( $head ) === null ) {
			return 'image/vnd.zbrush.pcx';
		}
		if ( strlen( $head ) >= 128 && str_starts_with( $head, 'DDS ' ) && self::u32( $head, 4 ) === 124 ) {
			return 'image/x-dds';
		}
		return null;
	}

	/**
	 * Checks that a `.pcx` or `.dds` holds that texture's header, and nothing a browser would take
	 * for HTML.
	 *
	 * @param string $path
	 * @param string $name
	 * @return string|null null when it does, else a sentence naming the file, the field and the byte
	 */
	public static function checkTexture( string $path, string $name ): ?string {
		$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
		$format = strtoupper( $ext );
		$head = self::readHead( $path ) ?? '';
		$problem = null;
		$lfs = self::lfsPointer( $head );
		if ( $lfs !== null ) {
			$problem = [ 0, $lfs ];
		} elseif ( strlen( $head ) < 128 ) {
			$problem = [ 0, 'file is ' . strlen( $head ) . ' bytes, shorter than the 128-byte header' ];
		} elseif ( $ext === 'pcx' ) {
			$problem = self::pcxHeaderProblem( $head );
		} elseif ( $ext === 'dds' ) {
			if ( !str_starts_with( $head, 'DDS ' ) ) {
				$problem = [ 0, 'magic is not "DDS " (found "' . self::shown( substr( $head, 0, 4 ) ) . '")' ];
			} elseif ( self::u32( $head, 4 ) !== 124 ) {
				$problem = [ 4, 'header size is ' . self::u32( $head, 4 ) . ', a DirectDraw Surface header is 124 bytes' ];
			}
		} else {
			$problem = [ 0, ".$ext is not a texture file extension" ];
		}
		if ( $problem === null ) {
			$mime = self::textureType( $head ) ?? 'application/octet-stream';
			$problem = self::browserWouldRun( $path, $head, $mime, $ext );
		}
		return $problem === null ? null : "$format $name: {$problem[1]} (at byte {$problem[0]})";
	}

	/**
	 * ZSoft PCX's 128-byte header: manufacturer 0x0A, version 0 to 5, encoding 0 or 1 (RLE), bits
	 * per pixel 1, 2, 4 or 8, a window whose ends are not before its starts.
	 *
	 * @return array{0:int,1:string}|null [ byte, what is wrong ]
	 */
	private static function pcxHeaderProblem( string $head ): ?array {
		if ( ord( $head[0] ) !== 0x0A ) {
			return [ 0, sprintf( 'manufacturer byte is 0x%02X, a PCX image starts with 0x0A', ord( $head[0] ) ) ];
		}
		if ( !in_array( ord( $head[1] ), [ 0, 2, 3, 4, 5 ], true ) ) {
			return [ 1, 'version is ' . ord( $head[1] ) . ' (PCX versions are 0, 2, 3, 4 and 5)' ];
		}
		if ( ord( $head[2] ) > 1 ) {
			return [ 2, 'encoding is ' . ord( $head[2] ) . ' (0 raw or 1 run-length)' ];
		}
		if ( !in_array( ord( $head[3] ), [ 1, 2, 4, 8 ], true ) ) {
			return [ 3, 'bits per pixel is ' . ord( $head[3] ) . ' (1, 2, 4 or 8)' ];
		}
		if ( self::u16( $head, 8 ) < self::u16( $head, 4 ) || self::u16( $head, 10 ) < self::u16( $head, 6 ) ) {
			return [ 4, 'the image window ends before it starts' ];
		}
		return null;
	}

	/** Why the first bytes are not what the extension says, in the decoders' words. */
	private static function notWhat( string $ext, string $head, int $fileSize, ?string $kind ): string {
		$found = self::shown( substr( $head, 0, 8 ) );
		$is = $kind ? ' (it is a ' . $kind . ' file)' : '';
		switch ( $ext ) {
			case 'rigscope':
				return "signature is not \\x89RSB\\r\\n\\x1a\\n (found \"$found\")$is";
			case 'psk':
			case 'pskx':
				return "file does not start with an ACTRHEAD chunk (found \"$found\")$is";
			case 'psa':
				return "file does not start with an ANIMHEAD chunk or the PSSA magic (found \"$found\")$is";
			case 'pmd':
				return "magic is not PSMD (found \"" . self::shown( substr( $head, 0, 4 ) ) . "\")"
					. ( str_starts_with( $head, 'Pmd' ) ? ' (a MikuMikuDance model, not 0 A.D.)' : $is );
			case 'psg':
				return "magic is not \\x89RW4 (not a RenderWare 4 arena; found \"$found\")$is";
			case 'uc':
				return "a .uc script is text, these bytes are a $kind file (found \"$found\")";
			case 'u':
			case 'utx':
				return 'tag is not C1 83 2A 9E, the tag of an Unreal package (found "'
					. self::shown( substr( $head, 0, 4 ) ) . "\")$is";
			default:
				$a = strlen( $head ) >= 4 ? self::u16( $head, 0 ) : 0;
				$b = strlen( $head ) >= 4 ? self::u16( $head, 2 ) : 0;
				return "neither a data file (48 + 16 × NumPolys $a = " . ( 48 + 16 * $a )
					. " bytes) nor an animation file (4 + NumFrames $a × FrameSize $b = " . ( 4 + $a * $b )
					. " bytes) holds $fileSize bytes$is";
		}
	}

	/** The first chunk header of an ActorX file: id, TypeFlag, DataSize, DataCount (32 bytes). */
	private static function checkActorXHead( string $head, string $kind, callable $refuse ): array {
		if ( strlen( $head ) < 32 ) {
			return $refuse( 0, 'file is ' . strlen( $head ) . ' bytes, shorter than its 32-byte chunk header' );
		}
		$dataSize = self::i32( $head, 24 );
		$dataCount = self::i32( $head, 28 );
		// The id is the file's bytes: shown as text (printable ASCII, the rest as \xNN).
		$id = self::shown( explode( "\0", substr( $head, 0, 20 ) )[0] );
		if ( $dataSize < 0 ) {
			return $refuse( 24, "chunk $id declares DataSize $dataSize" );
		}
		if ( $dataCount < 0 ) {
			return $refuse( 28, "chunk $id declares DataCount $dataCount" );
		}
		return [ 'kind' => $kind, 'error' => null, 'header' => [ 'typeFlag' => self::u32( $head, 20 ) ] ];
	}

	/** 0 A.D.'s 12-byte FileHeader: magic, version (1 and up), payloadSize. */
	private static function checkFileHeader( string $head, int $fileSize, string $kind, callable $refuse ): array {
		if ( strlen( $head ) < 12 ) {
			return $refuse( 0, 'file is ' . strlen( $head ) . ' bytes, shorter than the 12-byte header' );
		}
		$version = self::u32( $head, 4 );
		if ( $version === 0 ) {
			return $refuse( 4, 'version 0 (the engine reads versions 1 and up)' );
		}
		return [ 'kind' => $kind, 'error' => null, 'header' => [
			'version' => $version,
			'payloadSize' => self::u32( $head, 8 ),
		] ];
	}

	/** The RenderWare 4 arena header (skate3-psg.md §2): suffix, platform, byte order, pointer size, version. */
	private static function checkArenaHeader( string $head, callable $refuse ): array {
		if ( strlen( $head ) < 28 ) {
			return $refuse( 0, 'arena header needs 28 bytes, file has ' . strlen( $head ) );
		}
		if ( substr( $head, 8, 4 ) !== "\r\n\x1a\n" ) {
			return $refuse( 8, 'magic suffix is not 0D 0A 1A 0A (file damaged by a text-mode transfer?)' );
		}
		$platform = substr( $head, 4, 4 );
		if ( $platform !== "ps3\0" ) {
			$known = [ "xb2\0" => 'X360', "rev\0" => 'Wii', "w32\0" => 'PC' ];
			if ( isset( $known[$platform] ) ) {
				return $refuse( 4, "platform '" . rtrim( $platform, "\0" ) . "' is a {$known[$platform]} arena; "
					. "X360/Wii/PC arenas are not supported, only PS3 ('ps3')" );
			}
			return $refuse( 4, 'unknown platform tag ' . strtoupper( implode( ' ', str_split( bin2hex( $platform ), 2 ) ) )
				. " (expected 'ps3')" );
		}
		if ( ord( $head[0x0C] ) !== 1 ) {
			return $refuse( 0x0C, 'endianness byte is ' . ord( $head[0x0C] ) . ', PS3 arenas are big-endian (1)' );
		}
		if ( ord( $head[0x0D] ) !== 32 ) {
			return $refuse( 0x0D, 'pointer size is ' . ord( $head[0x0D] ) . ' bits, expected 32' );
		}
		if ( substr( $head, 0x10, 4 ) !== "454\0" ) {
			return $refuse( 0x10, 'major version is not "454" (RenderWare 4.5.4)' );
		}
		return [ 'kind' => 'psg', 'error' => null, 'header' => [ 'platform' => 'ps3', 'version' => '4.5.4' ] ];
	}

	/**
	 * A `.uc` is text: the viewer reads its `#exec` lines (mesh, scale, sequences, textures). A
	 * NUL byte says it is not a script (a package or a model renamed); it is looked for in the
	 * whole file, a read bounded by the upload's own size.
	 */
	private static function checkScript( string $path, callable $refuse ): array {
		$in = @fopen( $path, 'rb' );
		if ( !$in ) {
			return $refuse( 0, 'the file cannot be read' );
		}
		$at = 0;
		$imports = false;
		$tail = '';
		while ( !feof( $in ) ) {
			$chunk = (string)fread( $in, self::HEAD_BYTES );
			$nul = strpos( $chunk, "\0" );
			if ( $nul !== false ) {
				fclose( $in );
				return $refuse( $at + $nul, 'a NUL byte: a .uc script is text' );
			}
			// The 10 bytes kept from the last read find a line split between two reads.
			$imports = $imports || stripos( $tail . $chunk, '#exec mesh' ) !== false;
			$tail = substr( $chunk, -10 );
			$at += strlen( $chunk );
		}
		fclose( $in );
		return [ 'kind' => 'uc', 'error' => null, 'header' => [ 'importsMesh' => $imports ] ];
	}

	/** UE1's FJSDataHeader (NumPolys, NumVertices) or FJSAnivHeader (NumFrames, FrameSize). */
	private static function checkUnrealHeader( string $head, int $fileSize, string $kind, callable $refuse ): array {
		$a = self::u16( $head, 0 );
		$b = self::u16( $head, 2 );
		if ( $kind === 'ue1-data' ) {
			if ( $fileSize < 48 ) {
				return $refuse( 0, "data file is $fileSize bytes, shorter than its 48-byte header" );
			}
			if ( $b < 3 ) {
				return $refuse( 2, "NumVertices is $b, a mesh needs at least 3" );
			}
			if ( 48 + 16 * $a > $fileSize ) {
				return $refuse( 0, "NumPolys declares $a triangles of 16 bytes after the 48-byte header, "
					. ( $fileSize - 48 ) . ' bytes remain' );
			}
			return [ 'kind' => $kind, 'error' => null, 'header' => [ 'NumPolys' => $a, 'NumVertices' => $b ] ];
		}
		if ( 4 + $a * $b > $fileSize ) {
			return $refuse( 0, "NumFrames declares $a frames of $b bytes, " . ( $fileSize - 4 ) . ' bytes remain' );
		}
		return [ 'kind' => $kind, 'error' => null, 'header' => [ 'NumFrames' => $a, 'FrameSize' => $b ] ];
	}

	/**
	 * A UE1 package's header (ue1-package.md §3): its version, and name, export and import tables
	 * that start inside the file with counts it could hold (every entry takes a byte at least).
	 * The tables themselves are read by the decoders (`rigscope inspect`).
	 */
	private static function checkPackageHeader( string $head, int $fileSize, callable $refuse ): array {
		if ( strlen( $head ) < 36 ) {
			return $refuse( 0, 'file is ' . strlen( $head ) . ' bytes, shorter than the 36-byte package header' );
		}
		$version = self::u16( $head, 4 );
		if ( $version < 61 || $version > 127 ) {
			return $refuse( 4, "FileVersion is $version (UE1 packages are versions 61 to 127)" );
		}
		$tables = [ 'Name' => 12, 'Export' => 20, 'Import' => 28 ];
		$header = [ 'version' => $version ];
		foreach ( $tables as $table => $at ) {
			$count = self::u32( $head, $at );
			$offset = self::u32( $head, $at + 4 );
			if ( $count > 0 && $offset >= $fileSize ) {
				return $refuse( $at + 4, "{$table}Offset $offset is past the end of the file ($fileSize bytes)" );
			}
			if ( $count > $fileSize - $offset ) {
				return $refuse( $at, "{$table}Count $count cannot fit in the " . ( $fileSize - $offset )
					. " bytes after {$table}Offset $offset" );
			}
			$header[lcfirst( $table ) . 's'] = $count;
		}
		return [ 'kind' => 'upackage', 'error' => null, 'header' => $header ];
	}

	/**
	 * A Git LFS pointer in place of a file: mod repositories keep packages, textures and archives
	 * so, and a pointer downloaded from one is about 130 bytes of text, not the file.
	 *
	 * @param string $head
	 * @return string|null why it is not the file (with the size the pointer names), or null
	 */
	public static function lfsPointer( string $head ): ?string {
		if ( strlen( $head ) > 1024 || !str_starts_with( $head, self::LFS_POINTER ) ) {
			return null;
		}
		$size = preg_match( '/^size (\d{1,15})$/m', $head, $m ) ? (int)$m[1] : null;
		return 'a Git LFS pointer, not the file: the repository keeps this file elsewhere'
			. ( $size !== null ? ' (' . number_format( $size ) . ' bytes)' : '' )
			. '; upload the file itself (git lfs pull fetches it)';
	}

	/**
	 * A bundle: the signature, then raw deflate of "RSPK" · u32le file count · u32le header length ·
	 * JSON header {v:1,state,files:[{name,size}]} · the files. Only the header is inflated, and at
	 * most as much input as it can take.
	 */
	private static function checkBundle( string $path, string $name, callable $refuse ): array {
		$header = self::readBundleHeader( $path );
		if ( isset( $header['error'] ) ) {
			return $refuse( $header['at'], $header['error'] );
		}
		return [ 'kind' => 'bundle', 'error' => null, 'header' => $header ];
	}

	/**
	 * The header of a bundle: [ 'files' => [[name, size]...], 'state' => [...] ], or
	 * [ 'error' => sentence, 'at' => byte ] (offsets count in the inflated container, after the
	 * 8-byte signature, as web/src/core/pack.js does).
	 *
	 * @param string $path
	 * @return array
	 */
	public static function readBundleHeader( string $path ): array {
		$fail = static function ( int $at, string $what ): array {
			return [ 'error' => $what, 'at' => $at ];
		};
		if ( !function_exists( 'inflate_init' ) ) {
			return $fail( 8, 'this PHP has no zlib, the bundle\'s header cannot be read' );
		}
		$f = @fopen( $path, 'rb' );
		if ( !$f ) {
			return $fail( 0, 'the file cannot be read' );
		}
		$fileSize = (int)filesize( $path );
		fseek( $f, strlen( self::BUNDLE_SIGNATURE ) );
		$ctx = inflate_init( ZLIB_ENCODING_RAW );
		$out = '';
		$need = 12;
		$read = 0;
		$count = null;
		$headerLength = null;
		while ( strlen( $out ) < $need ) {
			if ( feof( $f ) || $read >= self::MAX_BUNDLE_READ ) {
				fclose( $f );
				return $fail( strlen( $out ), strlen( $out ) < 12
					? 'the container ends before its 12-byte head'
					: "its header of $headerLength bytes ends after " . ( strlen( $out ) - 12 ) . ' bytes' );
			}
			$chunk = fread( $f, 16384 );
			$read += strlen( $chunk );
			$more = @inflate_add( $ctx, $chunk, ZLIB_SYNC_FLUSH );
			if ( $more === false ) {
				fclose( $f );
				return $fail( strlen( $out ), 'its deflate stream is damaged' );
			}
			$out .= $more;
			if ( $count === null && strlen( $out ) >= 12 ) {
				if ( substr( $out, 0, 4 ) !== 'RSPK' ) {
					fclose( $f );
					return $fail( 0, 'it is not a Rigscope packed scene (its first bytes are not "RSPK")' );
				}
				$count = self::u32( $out, 4 );
				$headerLength = self::u32( $out, 8 );
				if ( $count > self::MAX_BUNDLE_FILES ) {
					fclose( $f );
					return $fail( 4, "it holds $count files, over the limit of " . self::MAX_BUNDLE_FILES );
				}
				if ( $headerLength > self::MAX_BUNDLE_HEADER ) {
					fclose( $f );
					return $fail( 8, "its header declares $headerLength bytes, over the 4 MiB limit" );
				}
				$need = 12 + $headerLength;
			}
		}
		fclose( $f );
		$json = json_decode( substr( $out, 12, $headerLength ), true );
		if ( !is_array( $json ) ) {
			return $fail( 12, "its header (bytes 12–" . ( 12 + $headerLength ) . ') is not JSON' );
		}
		if ( ( $json['v'] ?? null ) !== 1 ) {
			return $fail( 12, 'its header is version ' . self::quoted( $json['v'] ?? null ) . '; this Rigscope reads version 1' );
		}
		$files = $json['files'] ?? null;
		if ( !is_array( $files ) || !array_is_list( $files ) ) {
			return $fail( 12, 'its header has no file list' );
		}
		if ( count( $files ) !== $count ) {
			return $fail( 4, 'its header lists ' . count( $files ) . " files, its count says $count" );
		}
		$state = $json['state'] ?? [];
		if ( !is_array( $state ) || ( $state !== [] && array_is_list( $state ) ) ) {
			return $fail( 12, "its header's view state is not an object" );
		}
		$listed = [];
		$declared = 0;
		foreach ( $files as $i => $file ) {
			$fileName = $file['name'] ?? null;
			$size = $file['size'] ?? null;
			if ( !is_string( $fileName ) || $fileName === '' || strlen( $fileName ) > 1024
				|| preg_match( '/[\x00-\x1f\x7f\\\\]/', $fileName ) || str_starts_with( $fileName, '/' )
				|| preg_match( '#(^|/)\.{0,2}(/|$)#', $fileName )
			) {
				return $fail( 12, 'file ' . ( $i + 1 ) . "'s name is not a relative path; nothing was opened" );
			}
			if ( !is_int( $size ) || $size < 0 ) {
				return $fail( 12, "$fileName: its size " . self::quoted( $size ) . ' is not a byte count' );
			}
			$declared += $size;
			$listed[] = [ 'name' => $fileName, 'size' => $size ];
		}
		if ( $declared + 12 + $headerLength > $fileSize * 1032 ) {
			return $fail( 12, "its files declare $declared bytes, more than $fileSize bytes of deflate can hold" );
		}
		return [ 'files' => $listed, 'state' => $state ];
	}

	/** @return string|null the first HEAD_BYTES of a file */
	private static function readHead( string $path ): ?string {
		$f = @fopen( $path, 'rb' );
		if ( !$f ) {
			return null;
		}
		$head = (string)fread( $f, self::HEAD_BYTES );
		fclose( $f );
		return $head;
	}

	/** A JSON value from a file, for a message: as JSON, at most 60 characters of it. */
	private static function quoted( $value ): string {
		$json = (string)json_encode( $value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PARTIAL_OUTPUT_ON_ERROR );
		return mb_strlen( $json ) > 60 ? mb_substr( $json, 0, 60 ) . '…' : $json;
	}

	/** Bytes as text for a message: printable ASCII kept, the rest as \xNN. */
	private static function shown( string $bytes ): string {
		$bytes = rtrim( $bytes, "\0" );
		return preg_replace_callback( '/[^\x20-\x7e]|["\\\\]/', static function ( $m ) {
			return sprintf( '\\x%02X', ord( $m[0] ) );
		}, $bytes );
	}

	private static function u16( string $s, int $at ): int {
		return unpack( 'v', $s, $at )[1];
	}

	private static function u32( string $s, int $at ): int {
		return unpack( 'V', $s, $at )[1];
	}

	private static function i32( string $s, int $at ): int {
		$v = unpack( 'V', $s, $at )[1];
		return $v >= 0x80000000 ? $v - 0x100000000 : $v;
	}
}
