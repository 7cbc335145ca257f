/*!
 * Rigscope for MediaWiki: turns a model's thumbnail into the player on a click or Enter.
 *
 * This is all the script a page pays for before a click. The player (rigscope-viewer.js, its
 * worker and the WASM decoders) is a static file of the extension, loaded by a module script
 * element on the first click (no `import()`: a module script element needs nothing of the
 * minifier and no inline script, so it works under a strict CSP). Written as ES5 and not marked
 * "es6" in extension.json, so ResourceLoader 1.39 serves it to every browser: one without custom
 * elements just follows the thumbnail's link to the file page.
 *
 * Page text is hostile. Only a placeholder the extension made opens: its view travels in
 * `data-mw-rigscope`, an attribute MediaWiki's sanitizer removes from anything an editor writes
 * (data-mw-* is reserved for extensions). The player's address comes from the extension's own
 * configuration (config.json), never from the page, and the player fetches only the wiki's own
 * uploads: each file's URL must be under $wgUploadPath, on the wiki's origin.
 */
(function () {
  'use strict';

  var config = require('./config.json');
  var requested = false;

  /** Adds the player's module script once; the element upgrades every viewer when it runs. */
  function loadPlayer(onError) {
    if (requested || window.customElements.get('rigscope-viewer')) {
      return;
    }
    requested = true;
    var script = document.createElement('script');
    script.type = 'module';
    script.src = config.player;
    script.onerror = function () {
      requested = false;
      onError();
    };
    document.head.appendChild(script);
  }

  /** Whether a URL names one of the wiki's own uploads: same origin and path as $wgUploadPath. */
  function isUpload(url) {
    var base, file;
    try {
      base = new URL(config.uploadPath.replace(/\/*$/, '/'), location.href);
      file = new URL(url, location.href);
    } catch (e) {
      return false;
    }
    return (
      (file.protocol === 'https:' || file.protocol === 'http:') &&
      file.origin === base.origin &&
      file.pathname.indexOf(base.pathname) === 0 &&
      // The URL parser has already resolved dot segments; an encoded one could still climb.
      !/%2e|%2f|%5c/i.test(file.pathname)
    );
  }

  /**
   * The view a placeholder carries (files, mesh, clip, frame, size, name), or null when the extension
   * did not make it or it names a file that is not one of the wiki's uploads.
   */
  function viewOf(placeholder) {
    var view;
    try {
      view = JSON.parse(placeholder.getAttribute('data-mw-rigscope'));
    } catch (e) {
      return null;
    }
    if (!view || !Array.isArray(view.src) || !view.src.length) {
      return null;
    }
    for (var i = 0; i < view.src.length; i++) {
      if (typeof view.src[i] !== 'string' || !isUpload(view.src[i])) {
        mw.log.warn('Rigscope: not one of the wiki\u2019s uploads, not opened: ' + view.src[i]);
        return null;
      }
    }
    return view;
  }

  /** Replaces a placeholder with the player, in place, at the placeholder's size. */
  function open(placeholder, focus) {
    var view = window.customElements && viewOf(placeholder);
    if (!view) {
      return false;
    }
    var block = placeholder.classList.contains('rigscope-block');
    var box = document.createElement(block ? 'div' : 'span');
    box.className = 'rigscope-player' + (block ? ' rigscope-block' : '');
    var rect = placeholder.getBoundingClientRect();
    var width = Number(view.width) || Math.round(rect.width) || 320;
    var height = Number(view.height) || Math.round(rect.height) || 240;
    box.style.width = width + 'px';
    box.style.aspectRatio = width + ' / ' + height;

    var viewer = document.createElement('rigscope-viewer');
    viewer.setAttribute('src', view.src.join(' '));
    if (typeof view.mesh === 'string' && view.mesh) {
      viewer.setAttribute('mesh', view.mesh);
    }
    if (typeof view.clip === 'string' && view.clip) {
      viewer.setAttribute('clip', view.clip);
    }
    if (typeof view.frame === 'number') {
      // A click plays: from the frame asked for, once it is shown (unless the reader asked
      // for reduced motion, as the element's own autoplay does).
      viewer.setAttribute('frame', String(view.frame));
      viewer.addEventListener(
        'load',
        function () {
          if (!window.matchMedia('(prefers-reduced-motion: reduce)').matches) {
            viewer.play();
          }
        },
        { once: true }
      );
    } else {
      viewer.setAttribute('autoplay', '');
    }
    viewer.setAttribute('controls', 'full');
    viewer.setAttribute('alt', typeof view.name === 'string' && view.name ? view.name : mw.msg('rigscope-player-loading'));
    box.appendChild(viewer);
    placeholder.parentNode.replaceChild(box, placeholder);
    loadPlayer(function () {
      box.textContent = mw.msg('rigscope-player-failed');
      box.classList.add('error');
    });
    if (focus) {
      viewer.setAttribute('tabindex', '-1');
      viewer.focus();
    }
    return true;
  }

  document.addEventListener('click', function (e) {
    var placeholder = e.target.closest && e.target.closest('[data-mw-rigscope]');
    // A modified or middle click opens the file page, as a link does.
    if (!placeholder || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) {
      return;
    }
    if (open(placeholder, true)) {
      e.preventDefault();
    }
  });

  // The file description page opens its own player at once.
  if (mw.config.get('wgRigscopeOpen')) {
    mw.hook('wikipage.content').add(function () {
      var placeholder = document.querySelector('#file [data-mw-rigscope], .fullImageLink [data-mw-rigscope]');
      if (placeholder) {
        open(placeholder, false);
      }
    });
  }
})();
