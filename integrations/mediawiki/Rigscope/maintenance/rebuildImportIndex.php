<?php
/**
 * Fills the import index (ImportIndex, table rigscope_import) for the files already on the wiki:
 * run it once after installing the extension or updating it to a version with the index, after
 * `update.php`. Uploads keep the index right from then on.
 *
 *   php extensions/Rigscope/maintenance/rebuildImportIndex.php
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use Maintenance;
use MediaWiki\MediaWikiServices;

$IP = getenv( 'MW_INSTALL_PATH' );
if ( $IP === false ) {
	// extensions/Rigscope/maintenance; else Debian's MediaWiki (the folder linked from a checkout).
	$IP = is_file( __DIR__ . '/../../../maintenance/Maintenance.php' ) ? __DIR__ . '/../../..' : '/usr/share/mediawiki';
}
require_once "$IP/maintenance/Maintenance.php";

class RebuildImportIndex extends Maintenance {

	public function __construct() {
		parent::__construct();
		$this->addDescription( 'Indexes what each model, class script and texture on the wiki imports or binds, '
			. 'so that model files find their companions whatever their names.' );
		$this->requireExtension( 'Rigscope' );
		$this->setBatchSize( 200 );
	}

	public function execute() {
		if ( !ImportIndex::available() ) {
			$this->fatalError( 'The table ' . ImportIndex::TABLE . ' is missing: run maintenance/update.php first.' );
		}
		$services = MediaWikiServices::getInstance();
		$repo = $services->getRepoGroup()->getLocalRepo();
		$dbr = $repo->getReplicaDB();
		$last = '';
		$seen = 0;
		$indexed = 0;
		do {
			$names = $dbr->newSelectQueryBuilder()
				->select( 'img_name' )
				->from( 'image' )
				->where( 'img_name > ' . $dbr->addQuotes( $last ) )
				->orderBy( 'img_name' )
				->limit( $this->getBatchSize() )
				->caller( __METHOD__ )
				->fetchFieldValues();
			foreach ( $names as $name ) {
				$name = (string)$name;
				$last = $name;
				$seen++;
				if ( !ImportIndex::concerns( $name ) ) {
					continue;
				}
				$file = $repo->newFile( $name );
				if ( $file && $file->exists() && ImportIndex::update( $file ) ) {
					$indexed++;
				}
			}
			$this->waitForReplication();
		} while ( count( $names ) === $this->getBatchSize() );
		$this->output( "Indexed $indexed of $seen files.\n" );
	}
}

$maintClass = RebuildImportIndex::class;
require_once RUN_MAINTENANCE_IF_MAIN;
