<?php
// Router for `php -S … -t /usr/share/mediawiki router.php`: serves uploads from the wiki's folder
// and the Rigscope extension's static files from the repository (as a link in extensions/ would),
// and leaves everything else to MediaWiki. Paths come from the environment (tests/e2e/mediawiki/wiki.js).
$path = urldecode( parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );
$roots = [
	'/images/' => getenv( 'RIGSCOPE_WIKI_IMAGES' ),
	'/extensions/Rigscope/' => getenv( 'RIGSCOPE_EXTENSION_DIR' ),
];
$types = [
	'js' => 'text/javascript', 'mjs' => 'text/javascript', 'css' => 'text/css', 'wasm' => 'application/wasm',
	'png' => 'image/png', 'json' => 'application/json', 'svg' => 'image/svg+xml',
];
foreach ( $roots as $prefix => $dir ) {
	if ( !$dir || !str_starts_with( $path, $prefix ) ) {
		continue;
	}
	$base = realpath( $dir );
	$file = realpath( $base . '/' . substr( $path, strlen( $prefix ) ) );
	if ( $file === false || !str_starts_with( $file, $base . '/' ) || !is_file( $file ) ) {
		http_response_code( 404 );
		echo "not found\n";
		return true;
	}
	$ext = strtolower( pathinfo( $file, PATHINFO_EXTENSION ) );
	header( 'Content-Type: ' . ( $types[$ext] ?? 'application/octet-stream' ) );
	header( 'Content-Length: ' . filesize( $file ) );
	header( 'X-Content-Type-Options: nosniff' );
	readfile( $file );
	return true;
}
return false;
