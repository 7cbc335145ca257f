<?php
/**
 * The extension's hooks: model files' MIME types, the upload check, the `<rigscope>` tag and
 * `{{#rigscope:}}`, and the file description page (player, facts, OpenGraph).
 *
 * @file
 */

namespace MediaWiki\Extension\Rigscope;

use MediaWiki\Hook\MimeMagicGuessFromContentHook;
use MediaWiki\Hook\MimeMagicImproveFromExtensionHook;
use MediaWiki\Hook\MimeMagicInitHook;
use MediaWiki\Html\Html;
use MediaWiki\MediaWikiServices;
use MediaWiki\Output\Hook\BeforePageDisplayHook;
use MediaWiki\Page\Hook\ImageOpenShowImageInlineBeforeHook;
use MediaWiki\Parser\Hook\ParserFirstCallInitHook;
use MediaWiki\Parser\Parser;
use MediaWiki\Hook\SoftwareInfoHook;
use MediaWiki\Upload\Hook\UploadVerifyFileHook;
use Message;

class Hooks implements
	MimeMagicInitHook,
	MimeMagicGuessFromContentHook,
	MimeMagicImproveFromExtensionHook,
	UploadVerifyFileHook,
	ParserFirstCallInitHook,
	BeforePageDisplayHook,
	ImageOpenShowImageInlineBeforeHook,
	SoftwareInfoHook
{

	/** @inheritDoc */
	public function onMimeMagicInit( $mimeMagic ) {
		foreach ( ModelFileCheck::EXTENSIONS as $mime => $extensions ) {
			$mimeMagic->addExtraTypes( $mime . ' ' . implode( ' ', $extensions ) );
			$type = str_starts_with( $mime, 'text/' ) ? MEDIATYPE_TEXT : MEDIATYPE_3D;
			$mimeMagic->addExtraInfo( $mime . ' [' . $type . ']' );
		}
	}

	/**
	 * Magic only: UE1 halves have none, and size arithmetic alone would claim unrelated files; a
	 * `.uc` is typed by its name (any text may mention `#exec mesh`).
	 *
	 * @inheritDoc
	 */
	public function onMimeMagicGuessFromContent( $mimeMagic, &$head, &$tail, $file, &$mime ) {
		if ( $mime ) {
			return;
		}
		$kind = ModelFileCheck::detectHead( $head, 0 );
		if ( $kind !== null && !str_starts_with( $kind, 'ue1' ) && $kind !== 'uc' ) {
			$mime = ModelFileCheck::MIME_TYPES[$kind];
		}
	}

	/**
	 * A file named as a model is typed as one whatever its bytes, so that the upload check
	 * (onUploadVerifyFile) refuses it with a sentence naming what is wrong, rather than MediaWiki's
	 * "does not match the detected MIME type".
	 *
	 * @inheritDoc
	 */
	public function onMimeMagicImproveFromExtension( $mimeMagic, $ext, &$mime ) {
		$ext = strtolower( (string)$ext );
		if ( !in_array( $ext, ModelFileCheck::fileExtensions(), true ) ) {
			return;
		}
		if ( $mime !== null && in_array( $ext, ModelFileCheck::EXTENSIONS[$mime] ?? [], true ) ) {
			return;
		}
		foreach ( ModelFileCheck::EXTENSIONS as $type => $extensions ) {
			if ( in_array( $ext, $extensions, true ) ) {
				$mime = $type;
				return;
			}
		}
	}

	/**
	 * Each model file is checked by its content: the header checks of ModelFileCheck, then, with
	 * $wgRigscopeNode set, the whole file through `rigscope inspect`.
	 *
	 * @inheritDoc
	 */
	public function onUploadVerifyFile( $upload, $mime, &$error ) {
		$title = $upload->getTitle();
		// The name as the wiki stores it (underscores), as the decoders pair UE1 `_d.3d` and `_a.3d`.
		$name = $title ? $title->getDBkey() : '';
		$ext = strtolower( pathinfo( $name, PATHINFO_EXTENSION ) );
		if ( !isset( ModelFileCheck::EXTENSIONS[$mime] ) && !in_array( $ext, ModelFileCheck::fileExtensions(), true ) ) {
			return true;
		}
		$path = $upload->getTempPath();
		// A refusal quotes the file (a bundle's header, a decoder's message): plain text, never
		// wikitext, in every place it is shown (Special:Upload parses its messages).
		$check = ModelFileCheck::check( $path, $name );
		if ( $check['error'] !== null ) {
			$error = [ 'rigscope-upload-refused', Message::plaintextParam( $check['error'] ) ];
			return false;
		}
		$facts = Inspector::facts( $path, $name );
		if ( !empty( $facts['error'] ) ) {
			$error = [ 'rigscope-upload-refused', Message::plaintextParam( (string)$facts['error'] ) ];
			return false;
		}
		return true;
	}

	/** @inheritDoc */
	public function onParserFirstCallInit( $parser ) {
		$parser->setHook( 'rigscope', [ ModelTag::class, 'tag' ] );
		$parser->setFunctionHook( 'rigscope', [ ModelTag::class, 'parserFunction' ], Parser::SFH_OBJECT_ARGS );
	}

	/**
	 * The file page carries OpenGraph tags: a chat that unfurls a link shows the poster.
	 *
	 * @inheritDoc
	 */
	public function onBeforePageDisplay( $out, $skin ): void {
		$title = $out->getTitle();
		if ( !$title || $title->getNamespace() !== NS_FILE || !$out->isArticle() ) {
			return;
		}
		$services = MediaWikiServices::getInstance();
		$file = $services->getRepoGroup()->findFile( $title );
		if ( !RigscopeHandler::isModel( $file ) ) {
			return;
		}
		$image = null;
		if ( Inspector::posterCommand() ) {
			$thumb = $file->transform( [ 'width' => RigscopeHandler::WIDTH ] );
			if ( $thumb && !$thumb->isError() && $thumb->getUrl() ) {
				$image = $thumb->getUrl();
			}
		}
		if ( $image === null ) {
			$image = $out->getConfig()->get( 'ExtensionAssetsPath' ) . '/Rigscope/resources/rigscope-badge.png';
		}
		// UrlUtils is there since 1.39; the global wfExpandUrl is hard-deprecated since 1.45.
		$image = $services->getUrlUtils()->expand( $image, PROTO_CANONICAL ) ?? $image;
		$meta = [
			'og:title' => $title->getText(),
			'og:type' => 'website',
			'og:image' => $image,
			'og:image:width' => (string)RigscopeHandler::WIDTH,
			'og:image:height' => (string)RigscopeHandler::HEIGHT,
			'og:image:alt' => wfMessage( 'rigscope-play-label' )->params( $file->getName() )->inContentLanguage()->text(),
			'og:description' => RigscopeHandler::summary( $file ),
		];
		foreach ( $meta as $property => $content ) {
			$out->addHeadItem( "rigscope-$property",
				Html::element( 'meta', [ 'property' => $property, 'content' => $content ] ) );
		}
	}

	/**
	 * The file page opens its player at once, beside a table of facts.
	 *
	 * @inheritDoc
	 */
	public function onImageOpenShowImageInlineBefore( $imagePage, $out ) {
		$file = $imagePage->getDisplayedFile();
		if ( !RigscopeHandler::isModel( $file ) ) {
			return;
		}
		$out->addModules( [ 'ext.rigscope' ] );
		$out->addModuleStyles( [ 'ext.rigscope.styles' ] );
		$out->addJsConfigVars( 'wgRigscopeOpen', true );
		$out->addHTML( FactsTable::html( $file, $out->getContext() ) );
	}

	/**
	 * Special:Version says whether the wiki runs the Rigscope command line it is asked to: a folder
	 * copied without $wgRigscopeCli otherwise fails silently (cards, facts from headers only).
	 *
	 * @inheritDoc
	 */
	public function onSoftwareInfo( &$software ) {
		$config = MediaWikiServices::getInstance()->getMainConfig();
		if ( !$config->get( 'RigscopeNode' ) && $config->get( 'RigscopePosterCommand' ) !== true ) {
			return;
		}
		$problem = Inspector::cliProblem();
		$label = wfMessage( 'rigscope-version-cli' )->text();
		// Special:Version puts both into its table as they are: escaped here (a path is the wiki's
		// configuration, still shown as text).
		$software[htmlspecialchars( $label )] = wfEscapeWikiText( htmlspecialchars( $problem ?? Inspector::cli() ) );
	}
}
