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

	/** What each kind of file is called (the kinds of ModelFileCheck and `rigscope inspect`). */
	private const KIND_LABELS = [
		'bundle' => 'Rigscope bundle',
		'psk' => 'Unreal ActorX mesh (PSK)',
		'psa' => 'Unreal ActorX animation (PSA)',
		'pmd' => '0 A.D. model (PMD)',
		'pssa' => '0 A.D. animation (PSA)',
		'psg' => 'Skate 3 RenderWare arena (PSG)',
		'ue1' => 'Unreal Engine 1 vertex mesh (_d.3d + _a.3d)',
		'ue1-data' => 'Unreal Engine 1 data file (_d.3d)',
		'ue1-anim' => 'Unreal Engine 1 animation file (_a.3d)',
		'uc' => 'Unreal Engine 1 class script (.uc)',
	];

	/**
	 * @param array $facts a file's metadata
	 * @return string the file's format, as a reader knows it
	 */
	public static function formatLabel( array $facts ): string {
		$format = $facts['format'] ?? null;
		if ( !is_string( $format ) || $format === '' || $format === 'unknown' ) {
			$format = $facts['kind'] ?? null;
		}
		return self::KIND_LABELS[$format] ?? ( is_string( $format ) ? $format : '3D' );
	}

	/**
	 * @param array $facts a file's metadata
	 * @return array<string,int> count name => count, the notable ones first
	 */
	public static function countsShown( array $facts ): array {
		$counts = is_array( $facts['counts'] ?? null ) ? $facts['counts'] : [];
		$out = [];
		foreach ( self::SHOWN as $name ) {
			if ( isset( $counts[$name] ) && is_int( $counts[$name] ) && $counts[$name] > 0 ) {
				$out[$name] = $counts[$name];
			}
		}
		if ( !$out ) {
			foreach ( $facts['header'] ?? [] as $name => $value ) {
				if ( is_int( $value ) && $value > 0 && $name !== 'typeFlag' && $name !== 'payloadSize' ) {
					$out[$name] = $value;
				}
			}
		}
		return $out;
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
		$together = Inspector::together( $file, $companions );
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
		$row( $ctx->msg( 'rigscope-facts-format' )->text(), htmlspecialchars( self::formatLabel( $facts ) ) );
		$counts = is_array( $facts['counts'] ?? null ) ? $facts['counts'] : [];
		foreach ( $counts as $name => $n ) {
			if ( is_scalar( $n ) && $n !== 0 ) {
				$row( (string)$name, htmlspecialchars( (string)$n ) );
			}
		}
		if ( !$counts ) {
			foreach ( $facts['header'] ?? [] as $name => $value ) {
				if ( is_scalar( $value ) ) {
					$row( (string)$name, htmlspecialchars( (string)$value ) );
				}
			}
		}
		if ( !empty( $facts['files'] ) && is_array( $facts['files'] ) ) {
			// A bundle's files: name and size.
			$listed = array_map( static function ( $f ) {
				return ( $f['name'] ?? '?' ) . ' (' . ( $f['size'] ?? 0 ) . ' B)';
			}, $facts['files'] );
			$row( $ctx->msg( 'rigscope-facts-files' )->text(), htmlspecialchars( implode( ', ', $listed ) ) );
		}
		$sequences = is_array( $facts['sequences'] ?? null ) ? $facts['sequences'] : [];
		if ( $sequences ) {
			$items = '';
			foreach ( $sequences as $s ) {
				$fps = isset( $s['fps'] ) && is_numeric( $s['fps'] ) ? round( (float)$s['fps'], 2 ) : '?';
				$items .= Html::rawElement( 'li', [],
					Html::element( 'span', [ 'class' => 'rigscope-clip-name' ], (string)( $s['name'] ?? '' ) ) . ' '
					. $ctx->msg( 'rigscope-facts-clip' )->numParams( (int)( $s['frames'] ?? 0 ) )->params( $fps )->escaped() );
			}
			$row( $ctx->msg( 'rigscope-facts-clips' )->numParams( count( $sequences ) )->text(),
				Html::rawElement( 'ul', [ 'class' => 'rigscope-clips' ], $items ) );
		}
		if ( $companions ) {
			$links = array_map( static function ( File $c ) {
				return Html::element( 'a', [ 'href' => $c->getDescriptionUrl() ], $c->getName() );
			}, $companions );
			$row( $ctx->msg( 'rigscope-facts-plays-with' )->text(), implode( ', ', $links ) );
		}
		if ( !empty( $facts['pairedWith'] ) ) {
			$row( $ctx->msg( 'rigscope-facts-pairedwith' )->text(),
				htmlspecialchars( implode( ', ', array_map( 'basename', (array)$facts['pairedWith'] ) ) ) );
		}
		if ( !empty( $facts['boundTo'] ) && is_string( $facts['boundTo'] ) ) {
			// The bones matched on the mesh it is bound to.
			$bound = basename( $facts['boundTo'] );
			$text = $bound;
			foreach ( $facts['pairing'] ?? [] as $p ) {
				if ( is_array( $p ) && isset( $p['matched'], $p['total'] )
					&& basename( (string)( $p['mesh'] ?? '' ) ) === $bound
				) {
					$text = $ctx->msg( 'rigscope-facts-bound' )->params( $bound )
						->numParams( (int)$p['matched'], (int)$p['total'] )->text();
				}
			}
			$row( $ctx->msg( 'rigscope-facts-boundto' )->text(), htmlspecialchars( $text ) );
		}
		// What the file was read without (its mesh, its other half) is no news on a wiki, where the
		// player finds companions by name: those warnings of a file read alone are left out.
		$warnings = array_filter( is_array( $facts['warnings'] ?? null ) ? $facts['warnings'] : [], static function ( $w ) {
			return is_string( $w ) && !preg_match( '/^(not played on any model|missing \S+ \(its )/', $w );
		} );
		if ( $warnings ) {
			$items = '';
			foreach ( $warnings as $w ) {
				$items .= Html::element( 'li', [], (string)$w );
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
