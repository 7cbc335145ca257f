/*!
 * Rigscope for MediaWiki: turns a model's thumbnail into the player on a click or Enter.
 *
 * This is all the script a page pays for before a click. The player (rigscope-viewer.js, its
 * worker and the WASM decoders) is a static file of the extension, loaded by a module script
 * element on the first click (no `import()`: a module script element needs nothing of the
 * minifier and no inline script, so it works under a strict CSP). Written as ES5 and not marked
 * "es6" in extension.json, so ResourceLoader 1.39 serves it to every browser: one without custom
 * elements just follows the thumbnail's link to the file page.
 */
(function () {
  'use strict';

  var requested = false;

  /** Adds the player's module script once; the element upgrades every viewer when it runs. */
  function loadPlayer(url, onError) {
    if (requested || window.customElements.get('rigscope-viewer')) {
      return;
    }
    requested = true;
    var script = document.createElement('script');
    script.type = 'module';
    script.src = url;
    script.onerror = function () {
      requested = false;
      onError();
    };
    document.head.appendChild(script);
  }

  /** Replaces a placeholder with the player, in place, at the placeholder's size. */
  function open(placeholder, focus) {
    if (!window.customElements) {
      return false;
    }
    var data = placeholder.dataset;
    var block = placeholder.classList.contains('rigscope-block');
    var box = document.createElement(block ? 'div' : 'span');
    box.className = 'rigscope-player' + (block ? ' rigscope-block' : '');
    var rect = placeholder.getBoundingClientRect();
    var width = Number(data.rigscopeWidth) || Math.round(rect.width) || 320;
    var height = Number(data.rigscopeHeight) || Math.round(rect.height) || 240;
    box.style.width = width + 'px';
    box.style.aspectRatio = width + ' / ' + height;

    var viewer = document.createElement('rigscope-viewer');
    viewer.setAttribute('src', data.rigscopeSrc || '');
    if (data.rigscopeClip) {
      viewer.setAttribute('clip', data.rigscopeClip);
    }
    if (data.rigscopeFrame) {
      // A click plays: from the frame asked for, once it is shown (unless the reader asked
      // for reduced motion, as the element's own autoplay does).
      viewer.setAttribute('frame', data.rigscopeFrame);
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
    viewer.setAttribute('alt', mw.msg('rigscope-player-loading'));
    if (data.rigscopeName) {
      viewer.setAttribute('alt', data.rigscopeName);
    }
    box.appendChild(viewer);
    placeholder.parentNode.replaceChild(box, placeholder);
    loadPlayer(data.rigscopePlayer, function () {
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
    var placeholder = e.target.closest && e.target.closest('.rigscope-thumb');
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
      var placeholder = document.querySelector('#file .rigscope-thumb, .fullImageLink .rigscope-thumb');
      if (placeholder) {
        open(placeholder, false);
      }
    });
  }
})();
