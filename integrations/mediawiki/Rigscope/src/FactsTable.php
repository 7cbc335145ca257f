<?php
/**
 * The file description page's table of what `rigscope inspect` knows of a model file: its
 * format, counts, clips with frames and rates, what it plays with, and warnings.
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\FileRepo\File\File;
use MediaWiki\Html\Html;
use MessageLocalizer;

class FactsTable {

	/** Counts worth a card or a summary, in this order (the decoders' own names). */
	private const SHOWN = [ 'triangles', 'vertices', 'bones', 'sequences', 'frames', 'meshes', 'textures', 'props' ];

	/**
	 * Every count the decoders report (`rigscope inspect --json`, "counts") that a reader is shown,
	 * in this order, each said by the message rigscope-count-<name> ("492 triangles"). Left out:
	 * counts that repeat another in the format's own terms (PSK faces and wedges, UE1 polygons and
	 * render vertices, PSG indices, PMD faces) and the arena's bookkeeping (subreferences, islands);
	 * a count not listed here is never shown.
	 */
	private const COUNT_WORDS = [ 'triangles', 'vertices', 'points', 'bones', 'influences', 'materials', 'textures',
		'meshes', 'morphs', 'uvSets', 'colors', 'normals', 'sequences', 'frames', 'keys', 'scaleKeys', 'props',
		'objects', 'frameLengthMs' ];

	/** Header fields (read when the command line does not run) that are counts: header name => count name. */
	private const HEADER_COUNTS = [
		'NumPolys' => 'triangles',
		'NumVertices' => 'vertices',
		'NumFrames' => 'frames',
		'files' => 'files',
	];

	/**
	 * The decoders' "info" (and header) fields a reader is shown: field => message of its row label.
	 * Their values are the decoders' own short English phrases (a vertex encoding, a scale); ids,
	 * flags and layouts (ActorX typeFlag, face chunk ids, PSG vertex layouts) are left out, as is any
	 * field not listed here.
	 */
	private const INFO_LABELS = [
		'name' => 'rigscope-facts-info-name',
		'normalsFrom' => 'rigscope-facts-info-normals',
		'vertices' => 'rigscope-facts-info-vertices',
		'encoding' => 'rigscope-facts-info-encoding',
		'scale' => 'rigscope-facts-info-scale',
		'origin' => 'rigscope-facts-info-origin',
		'ucMesh' => 'rigscope-facts-info-ucmesh',
		'platform' => 'rigscope-facts-info-platform',
		'version' => 'rigscope-facts-info-version',
	];

	/** Items of a list shown on a file page (clips, a bundle's files, warnings, pairings): the rest are counted. */
	public const LIST_CAP = 100;

	/**
	 * The kinds of file (of ModelFileCheck and `rigscope inspect`) with a name a reader knows: the
	 * message rigscope-format-<kind> ("Unreal ActorX mesh (PSK)").
	 */
	private const KINDS_NAMED = [ 'bundle', 'psk', 'psa', 'pmd', 'pssa', 'psg', 'ue1', 'ue1-data', 'ue1-anim', 'uc', 'upackage' ];

	/**
	 * @param array $facts a file's metadata
	 * @param MessageLocalizer|null $ctx the reader's language; null: the wiki's content language
	 * @return string the file's format, as a reader knows it (plain text)
	 */
	public static function formatLabel( array $facts, ?MessageLocalizer $ctx = null ): string {
		$format = $facts['format'] ?? null;
		if ( !in_array( $format, self::KINDS_NAMED, true ) ) {
			// "unknown", or a record's role rather than a format ("companion"): the file's own kind.
			$format = $facts['kind'] ?? null;
		}
		$key = in_array( $format, self::KINDS_NAMED, true ) ? "rigscope-format-$format" : 'rigscope-format-other';
		return ( $ctx ? $ctx->msg( $key ) : wfMessage( $key )->inContentLanguage() )->text();
	}

	/**
	 * @param array $facts a file's metadata
	 * @return array<string,int> count name => count, the notable ones first
	 */
	public static function countsShown( array $facts ): array {
		$counts = self::counts( $facts );
		$out = [];
		foreach ( self::SHOWN as $name ) {
			if ( isset( $counts[$name] ) ) {
				$out[$name] = $counts[$name];
			}
		}
		return $out;
	}

	/**
	 * A file's counts in words, the notable ones first: "492 triangles", "307 vertices", "12 clips".
	 * For a description, an `og:description` or a card (RigscopeHandler::summary, PlayerMarkup::card).
	 *
	 * @param array $facts a file's metadata
	 * @param int $max at most this many
	 * @param MessageLocalizer|null $ctx the reader's language; null: the wiki's content language
	 * @return string[] plain text
	 */
	public static function countPhrases( array $facts, int $max = 4, ?MessageLocalizer $ctx = null ): array {
		$counts = self::counts( $facts );
		// The notable counts first, then the rest in the table's order.
		$order = array_unique( array_merge( self::SHOWN, self::COUNT_WORDS, [ 'files' ] ) );
		$out = [];
		foreach ( $order as $name ) {
			if ( isset( $counts[$name] ) && count( $out ) < $max ) {
				$out[] = self::countPhrase( $name, $counts[$name], $ctx );
			}
		}
		return $out;
	}

	/**
	 * The counts a reader is shown: from `rigscope inspect`, else from the header, under the names
	 * of COUNT_WORDS (and `files`, a bundle's). Zero and unknown counts are left out.
	 *
	 * @param array $facts
	 * @return array<string,int>
	 */
	private static function counts( array $facts ): array {
		$counts = is_array( $facts['counts'] ?? null ) ? $facts['counts'] : [];
		$out = [];
		foreach ( self::COUNT_WORDS as $name ) {
			if ( isset( $counts[$name] ) && is_int( $counts[$name] ) && $counts[$name] > 0 ) {
				$out[$name] = $counts[$name];
			}
		}
		if ( !$out ) {
			$header = is_array( $facts['header'] ?? null ) ? $facts['header'] : [];
			foreach ( self::HEADER_COUNTS as $field => $name ) {
				if ( isset( $header[$field] ) && is_int( $header[$field] ) && $header[$field] > 0 ) {
					$out[$name] = $header[$field];
				}
			}
		}
		return $out;
	}

	/** "492 triangles": the message rigscope-count-<name> (lower case). */
	private static function countPhrase( string $name, int $n, ?MessageLocalizer $ctx ): string {
		$key = 'rigscope-count-' . strtolower( $name );
		$msg = $ctx ? $ctx->msg( $key ) : wfMessage( $key )->inContentLanguage();
		return $msg->numParams( $n )->text();
	}

	/**
	 * A list item saying how many more items a capped list holds ("and 1,204 more").
	 *
	 * @param int $more
	 * @param MessageLocalizer $ctx
	 * @return string HTML
	 */
	private static function moreItem( int $more, MessageLocalizer $ctx ): string {
		return Html::element( 'li', [ 'class' => 'rigscope-facts-more' ],
			$ctx->msg( 'rigscope-facts-more' )->numParams( $more )->text() );
	}

	/**
	 * @param File $file
	 * @param MessageLocalizer $ctx
	 * @return string HTML
	 */
	public static function html( File $file, MessageLocalizer $ctx ): string {
		$facts = $file->getMetadataArray();
		// Read with its companions, a file says more: a UE1 half its mesh, an animation its mesh.
		$companions = Companions::of( $file );
		// (A package's used packages change no count of its own: it is not read with them.)
		$package = PackageFacts::isPackage( $file );
		$together = $package ? null : Inspector::together( $file, $companions );
		if ( $together ) {
			if ( !empty( $together['counts'] ) ) {
				$facts['counts'] = $together['counts'];
				$facts['format'] = $together['format'] ?? $facts['format'] ?? null;
				$facts['sequences'] = $together['sequences'] ?? $facts['sequences'] ?? [];
			}
			foreach ( [ 'pairedWith', 'boundTo', 'pairing' ] as $field ) {
				if ( !empty( $together[$field] ) ) {
					$facts[$field] = $together[$field];
				}
			}
		}
		$rows = '';
		$row = static function ( string $label, string $valueHtml ) use ( &$rows ) {
			$rows .= Html::rawElement( 'tr', [],
				Html::element( 'th', [ 'scope' => 'row' ], $label ) . Html::rawElement( 'td', [], $valueHtml )
			);
		};
		$row( $ctx->msg( 'rigscope-facts-format' )->text(), htmlspecialchars( self::formatLabel( $facts, $ctx ) ) );
		// Counts in words, on one row; then the few decoder fields a reader knows, under their labels.
		$phrases = self::countPhrases( $facts, PHP_INT_MAX, $ctx );
		if ( $phrases ) {
			$row( $ctx->msg( 'rigscope-facts-holds' )->text(),
				htmlspecialchars( implode( $ctx->msg( 'comma-separator' )->text(), $phrases ) ) );
		}
		$info = is_array( $facts['info'] ?? null ) ? $facts['info'] : [];
		if ( !$info && is_array( $facts['header'] ?? null ) ) {
			$info = $facts['header'];
		}
		foreach ( self::INFO_LABELS as $field => $label ) {
			$value = $info[$field] ?? null;
			if ( is_scalar( $value ) && !is_bool( $value ) && (string)$value !== '' && mb_strlen( (string)$value ) <= 200 ) {
				$row( $ctx->msg( $label )->text(), htmlspecialchars( $field === 'platform' ? strtoupper( (string)$value ) : (string)$value ) );
			}
		}
		if ( !empty( $facts['files'] ) && is_array( $facts['files'] ) ) {
			// A bundle's files: name and size, the first LIST_CAP of them.
			$items = '';
			foreach ( array_slice( $facts['files'], 0, self::LIST_CAP ) as $f ) {
				$items .= Html::element( 'li', [], is_array( $f ) ? $ctx->msg( 'rigscope-facts-file' )
					->plaintextParams( (string)( $f['name'] ?? '?' ) )
					->sizeParams( (int)( $f['size'] ?? 0 ) )->text() : '?' );
			}
			// The stored list may itself be the first of more (its count is in the header).
			$total = max( count( $facts['files'] ), (int)( $facts['header']['files'] ?? 0 ) );
			if ( $total > self::LIST_CAP ) {
				$items .= self::moreItem( $total - min( self::LIST_CAP, count( $facts['files'] ) ), $ctx );
			}
			$row( $ctx->msg( 'rigscope-facts-files' )->text(), Html::rawElement( 'ul', [], $items ) );
		}
		PackageFacts::rows( $facts, $companions, $ctx, $row );
		$sequences = is_array( $facts['sequences'] ?? null ) ? array_values( $facts['sequences'] ) : [];
		if ( $sequences ) {
			$items = '';
			foreach ( array_slice( $sequences, 0, self::LIST_CAP ) as $s ) {
				$s = is_array( $s ) ? $s : [];
				$length = $ctx->msg( 'rigscope-facts-clip' )->numParams( (int)( $s['frames'] ?? 0 ) );
				if ( isset( $s['fps'] ) && is_numeric( $s['fps'] ) ) {
					$length->numParams( round( (float)$s['fps'], 2 ) );
				} else {
					$length->params( '?' );
				}
				$items .= Html::rawElement( 'li', [],
					Html::element( 'span', [ 'class' => 'rigscope-clip-name' ], (string)( $s['name'] ?? '' ) ) . ' '
					. $length->escaped() );
			}
			// The clips known may be more than the stored ones (the count is the decoder's).
			$total = max( count( $sequences ), (int)( $facts['counts']['sequences'] ?? 0 ) );
			if ( $total > self::LIST_CAP ) {
				$items .= self::moreItem( $total - min( self::LIST_CAP, count( $sequences ) ), $ctx );
			}
			$row( $ctx->msg( 'rigscope-facts-clips' )->numParams( $total )->text(),
				Html::rawElement( 'ul', [ 'class' => 'rigscope-clips' ], $items ) );
		}
		if ( $companions && !$package ) {
			$links = array_map( static function ( File $c ) {
				return Html::element( 'a', [ 'href' => $c->getDescriptionUrl() ], $c->getName() );
			}, array_slice( $companions, 0, self::LIST_CAP ) );
			if ( count( $companions ) > self::LIST_CAP ) {
				$links[] = htmlspecialchars( $ctx->msg( 'rigscope-facts-more' )->numParams( count( $companions ) - self::LIST_CAP )->text() );
			}
			$row( $ctx->msg( 'rigscope-facts-plays-with' )->text(), implode( ', ', $links ) );
		}
		if ( !empty( $facts['pairedWith'] ) ) {
			$paired = array_map( static function ( $p ) {
				return basename( (string)$p );
			}, array_values( (array)$facts['pairedWith'] ) );
			$shown = array_slice( $paired, 0, self::LIST_CAP );
			if ( count( $paired ) > self::LIST_CAP ) {
				$shown[] = $ctx->msg( 'rigscope-facts-more' )->numParams( count( $paired ) - self::LIST_CAP )->text();
			}
			$row( $ctx->msg( 'rigscope-facts-pairedwith' )->text(), htmlspecialchars( implode( ', ', $shown ) ) );
		}
		if ( !empty( $facts['boundTo'] ) && is_string( $facts['boundTo'] ) ) {
			// The bones matched on the mesh it is bound to.
			$bound = basename( $facts['boundTo'] );
			$text = $bound;
			// Looked for among the first pairings only: the list is the decoder's, of any length.
			foreach ( array_slice( is_array( $facts['pairing'] ?? null ) ? $facts['pairing'] : [], 0, self::LIST_CAP ) as $p ) {
				if ( is_array( $p ) && isset( $p['matched'], $p['total'] )
					&& basename( (string)( $p['mesh'] ?? '' ) ) === $bound
				) {
					$text = $ctx->msg( 'rigscope-facts-bound' )->plaintextParams( $bound )
						->numParams( (int)$p['matched'], (int)$p['total'] )->text();
					break;
				}
			}
			$row( $ctx->msg( 'rigscope-facts-boundto' )->text(), htmlspecialchars( $text ) );
		}
		// What the file was read without (its mesh, its other half, the packages it uses) is no news
		// on a wiki, where the player finds companions by name and a package's row of used packages
		// says which are missing: those warnings of a file read alone are left out.
		$warnings = array_values( array_filter( is_array( $facts['warnings'] ?? null ) ? $facts['warnings'] : [], static function ( $w ) {
			return is_string( $w )
				&& !preg_match( '/^(not played on any model|not used — |missing \S+ \(its |missing \S+\.u or \.utx \(the package of )/', $w );
		} ) );
		if ( $warnings ) {
			$items = '';
			foreach ( array_slice( $warnings, 0, self::LIST_CAP ) as $w ) {
				$items .= Html::element( 'li', [], $w );
			}
			if ( count( $warnings ) > self::LIST_CAP ) {
				$items .= self::moreItem( count( $warnings ) - self::LIST_CAP, $ctx );
			}
			$row( $ctx->msg( 'rigscope-facts-warnings' )->text(), Html::rawElement( 'ul', [], $items ) );
		}
		if ( empty( $facts['inspected'] ) ) {
			$row( $ctx->msg( 'rigscope-facts-source' )->text(), $ctx->msg( 'rigscope-facts-header-only' )->escaped() );
		}
		$caption = Html::element( 'caption', [], $ctx->msg( 'rigscope-facts-caption' )->text() );
		return Html::rawElement( 'table', [ 'class' => 'wikitable rigscope-facts' ], $caption . $rows );
	}
}
