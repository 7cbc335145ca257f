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
use MediaWiki\Specials\Hook\SoftwareInfoHook;
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

	/**
	 * @var string|null once the file page of a model is being shown, for the messages of ImagePage's
	 *   resolution line: 'poster' (it has posters) or 'no-poster' (cards, or its facts alone)
	 */
	public static $modelFilePage = null;

	/** @inheritDoc */
	public function onMimeMagicInit( $mimeMagic ) {
		foreach ( ModelFileCheck::EXTENSIONS as $mime => $extensions ) {
			$mimeMagic->addExtraTypes( $mime . ' ' . implode( ' ', $extensions ) );
			$type = str_starts_with( $mime, 'text/' ) ? MEDIATYPE_TEXT : MEDIATYPE_3D;
			$mimeMagic->addExtraInfo( $mime . ' [' . $type . ']' );
		}
		foreach ( ModelFileCheck::TEXTURE_TYPES as $mime => [ $type, $aliases, $extensions ] ) {
			$mimeMagic->addExtraTypes( $mime . ' ' . implode( ' ', $extensions ) );
			$mimeMagic->addExtraInfo( implode( ' ', array_merge( [ $mime ], $aliases ) ) . " [$type]" );
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
			return;
		}
		// Textures by their header (not by libmagic's name for them, which varies).
		$texture = ModelFileCheck::textureType( $head );
		if ( $texture !== null ) {
			$mime = $texture;
		}
	}

	/**
	 * A file named as a model or a texture this extension types is typed as one whatever its
	 * bytes, so that the upload check (onUploadVerifyFile) refuses it with a sentence naming what is
	 * wrong, rather than MediaWiki's "does not match the detected MIME type".
	 *
	 * @inheritDoc
	 */
	public function onMimeMagicImproveFromExtension( $mimeMagic, $ext, &$mime ) {
		$ext = strtolower( (string)$ext );
		foreach ( ModelFileCheck::TEXTURE_TYPES as $type => [ , , $extensions ] ) {
			// A texture too (a Git LFS pointer named Skin.pcx is refused as one, not as text/plain).
			if ( in_array( $ext, $extensions, true ) ) {
				$mime = $type;
				return;
			}
		}
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
		foreach ( ModelFileCheck::TEXTURE_TYPES as $type => [ , , $extensions ] ) {
			if ( $mime === $type || in_array( $ext, $extensions, true ) ) {
				// Typed as a bitmap (trusted, no warning on its page): it must be one.
				$problem = ModelFileCheck::checkTexture( $upload->getTempPath(), $name );
				if ( $problem !== null ) {
					$error = [ 'rigscope-upload-refused-texture', Message::plaintextParam( $problem ) ];
					return false;
				}
				return true;
			}
		}
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
		if ( Inspector::node() !== null && empty( $facts['inspected'] ) ) {
			// The wiki reads uploads whole, and this one could not be read (the command line crashed,
			// ran out of time or of memory): refused rather than let in on its header alone.
			$error = [ 'rigscope-upload-unread', Message::plaintextParam( $name ) ];
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
			'og:image:alt' => wfMessage( 'rigscope-play-label' )->plaintextParams( $file->getName() )->inContentLanguage()->text(),
			'og:description' => RigscopeHandler::summary( $file ),
		];
		foreach ( $meta as $property => $content ) {
			$out->addHeadItem( "rigscope-$property",
				Html::element( 'meta', [ 'property' => $property, 'content' => $content ] ) );
		}
	}

	/**
	 * The file page opens its player at once, beside a table of facts. A file with nothing to play
	 * on this wiki (an animation whose mesh is not here, half of a UE1 pair) shows its facts and a
	 * sentence saying what it waits for, and no player. ImagePage's line under the picture, about
	 * a PNG preview and other resolutions of an image, is left out (onMessageCache__get).
	 *
	 * @inheritDoc
	 */
	public function onImageOpenShowImageInlineBefore( $imagePage, $out ) {
		$file = $imagePage->getDisplayedFile();
		if ( !RigscopeHandler::isModel( $file ) ) {
			return;
		}
		$plays = Companions::playable( $file );
		// A reader who asked for pictures smaller than the player is offered the poster's sizes,
		// when there are posters; a card or facts alone have no size to offer.
		self::$modelFilePage = $plays && Inspector::posterCommand() ? 'poster' : 'no-poster';
		$out->addModules( [ 'ext.rigscope' ] );
		$out->addModuleStyles( [ 'ext.rigscope.styles' ] );
		if ( $plays ) {
			$out->addJsConfigVars( 'wgRigscopeOpen', true );
		}
		$out->addHTML( FactsTable::html( $file, $out->getContext() ) );
		if ( !$plays ) {
			$out->addHTML( self::waitsFor( $file, $out->getContext() ) );
		}
	}

	/**
	 * What a file that plays on nothing yet waits for, in a sentence.
	 *
	 * @param \MediaWiki\FileRepo\File\File $file
	 * @param \MessageLocalizer $ctx
	 * @return string HTML
	 */
	private static function waitsFor( $file, $ctx ): string {
		$facts = $file->getMetadataArray();
		if ( preg_match( '/^(.*)_([da])\.3d$/i', $file->getName(), $m ) ) {
			$msg = $ctx->msg( 'rigscope-filepage-no-half' )
				->plaintextParams( $m[1] . '_' . ( strtolower( $m[2] ) === 'd' ? 'a' : 'd' ) . '.3d' );
		} else {
			$meshes = Companions::meshesFitting( $file );
			$bones = (int)( $facts['counts']['bones'] ?? 0 );
			$msg = count( $meshes ) > 1
				? $ctx->msg( 'rigscope-filepage-many-models' )->numParams( $bones )
				: $ctx->msg( 'rigscope-filepage-no-model' )->numParams( $bones );
		}
		return Html::rawElement( 'p', [ 'class' => 'rigscope-waits' ], $msg->parse() );
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

	/**
	 * The import index's table (ImportIndex), made by update.php.
	 *
	 * @param \DatabaseUpdater $updater
	 */
	public function onLoadExtensionSchemaUpdates( $updater ) {
		$type = $updater->getDB()->getType();
		$updater->addExtensionTable( ImportIndex::TABLE, dirname( __DIR__ ) . "/sql/$type/tables-generated.sql" );
	}

	/**
	 * A file uploaded, new or again (by the API, Special:Upload or importImages.php): what it
	 * imports and binds is indexed, before the answer is sent.
	 *
	 * @param \MediaWiki\FileRepo\File\File $file
	 * @param bool $reupload
	 * @param bool $hasDescription
	 */
	public function onFileUpload( $file, $reupload, $hasDescription ) {
		\DeferredUpdates::addCallableUpdate( static function () use ( $file ) {
			ImportIndex::indexUpload( $file );
			Companions::forget();
		}, \DeferredUpdates::PRESEND );
	}

	/**
	 * A file deleted (not an old version of it): its rows go.
	 *
	 * @param \MediaWiki\FileRepo\File\File $file
	 * @param string|null $oldimage
	 * @param mixed $article
	 * @param mixed $user
	 * @param string $reason
	 */
	public function onFileDeleteComplete( $file, $oldimage, $article, $user, $reason ) {
		if ( !$oldimage ) {
			ImportIndex::indexRemoval( $file->getName() );
			Companions::forget();
		}
	}

	/**
	 * A file's page deleted by other ways than the file's delete form (deleteBatch.php deletes the
	 * file, then its page): the rows of a file gone go.
	 *
	 * @param \MediaWiki\Page\ProperPageIdentity $page
	 * @param mixed $deleter
	 * @param string $reason
	 * @param int $pageID
	 * @param mixed $deletedRev
	 * @param mixed $logEntry
	 * @param int $archivedRevisionCount
	 */
	public function onPageDeleteComplete( $page, $deleter, $reason, $pageID, $deletedRev, $logEntry, $archivedRevisionCount ) {
		if ( $page->getNamespace() !== NS_FILE ) {
			return;
		}
		$file = MediaWikiServices::getInstance()->getRepoGroup()->getLocalRepo()->newFile( $page->getDBkey() );
		if ( $file ) {
			$file->load( $file::READ_LATEST );
			if ( !$file->exists() ) {
				ImportIndex::indexRemoval( $page->getDBkey() );
				Companions::forget();
			}
		}
	}

	/**
	 * A file's page restored, with the file (restored first): indexed again.
	 *
	 * @param \MediaWiki\Title\Title $title
	 * @param bool $create
	 * @param string $comment
	 * @param int $oldPageId
	 * @param array $restoredPages
	 */
	public function onArticleUndelete( $title, $create, $comment, $oldPageId, $restoredPages ) {
		if ( $title->getNamespace() !== NS_FILE ) {
			return;
		}
		$file = MediaWikiServices::getInstance()->getRepoGroup()->getLocalRepo()->newFile( $title );
		if ( $file ) {
			$file->load( $file::READ_LATEST );
			if ( $file->exists() ) {
				ImportIndex::indexUpload( $file );
				Companions::forget();
			}
		}
	}

	/**
	 * A file moved to another name: indexed under its new name.
	 *
	 * @param \MediaWiki\Linker\LinkTarget $old
	 * @param \MediaWiki\Linker\LinkTarget $new
	 * @param mixed $user
	 * @param int $pageid
	 * @param int $redirid
	 * @param string $reason
	 * @param mixed $revision
	 */
	public function onPageMoveComplete( $old, $new, $user, $pageid, $redirid, $reason, $revision ) {
		if ( $old->getNamespace() !== NS_FILE ) {
			return;
		}
		ImportIndex::indexRemoval( $old->getDBkey() );
		$file = MediaWikiServices::getInstance()->getRepoGroup()->getLocalRepo()->newFile( $new->getDBkey() );
		if ( $file && $file->exists() ) {
			ImportIndex::indexUpload( $file );
		}
		Companions::forget();
	}

	/**
	 * On a model's file page, ImagePage's line under the picture (a PNG preview's size, other
	 * resolutions, "no higher resolution") says nothing true of a player or of facts alone: its
	 * messages are the extension's, empty. A reader who asked for a smaller picture size than the
	 * player's is still told the poster's sizes when posters are drawn.
	 *
	 * @param string &$key
	 */
	public function onMessageCache__get( &$key ) {
		if ( self::$modelFilePage === null ) {
			return;
		}
		if ( $key === 'file-nohires' || ( self::$modelFilePage === 'no-poster' && in_array( $key,
			[ 'show-big-image-preview', 'show-big-image-preview-differ', 'show-big-image-other' ], true ) )
		) {
			$key = 'rigscope-filepage-resolution';
		}
	}
}
