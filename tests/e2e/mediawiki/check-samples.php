<?php
/**
 * Every file of a folder through the Rigscope extension's upload checks, as the wiki names them:
 * model files through ModelFileCheck::check (the header checks and the browser check: WHATWG's
 * HTML sniffing and UploadBase::detectScript), `.pcx`/`.dds` through checkTexture. Prints a JSON
 * object: { checked: n, refused: [ sentence... ] }. For tests/e2e/mediawiki-upload.test.js: no real
 * sample may be refused.
 *
 * Usage: MW_CONFIG_FILE=... php check-samples.php DIR
 */

use MediaWiki\Extension\Rigscope\ModelFileCheck;

require_once getenv( 'MW_INSTALL_PATH' ) !== false
	? getenv( 'MW_INSTALL_PATH' ) . '/maintenance/Maintenance.php'
	: '/usr/share/mediawiki/maintenance/Maintenance.php';

class RigscopeCheckSamples extends Maintenance {
	public function __construct() {
		parent::__construct();
		$this->addArg( 'dir', 'the folder to check, recursively' );
	}

	public function execute() {
		$files = new RecursiveIteratorIterator(
			new RecursiveDirectoryIterator( $this->getArg( 0 ), FilesystemIterator::SKIP_DOTS ) );
		$checked = 0;
		$refused = [];
		foreach ( $files as $file ) {
			$path = $file->getPathname();
			// The wiki's name: its first letter capitalised.
			$name = ucfirst( basename( $path ) );
			$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
			if ( in_array( $ext, ModelFileCheck::fileExtensions(), true ) ) {
				$error = ModelFileCheck::check( $path, $name )['error'];
			} elseif ( in_array( $ext, [ 'pcx', 'dds' ], true ) ) {
				$error = ModelFileCheck::checkTexture( $path, $name );
			} else {
				continue;
			}
			$checked++;
			if ( $error !== null ) {
				$refused[] = "$path: $error";
			}
		}
		$this->output( json_encode( [ 'checked' => $checked, 'refused' => $refused ] ) . "\n" );
	}
}

$maintClass = RigscopeCheckSamples::class;
require_once RUN_MAINTENANCE_IF_MAIN;
