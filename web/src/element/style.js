// The element's shadow styles, adopted as a constructed sheet: no style attribute or inline
// <style> needed, so pages with a strict style-src keep working.
export const CSS = `
:host { display: inline-block; position: relative; width: 320px; height: 240px; contain: content;
  color: #e8eaf0; font: 13px/1.3 system-ui, sans-serif; background: #23262e; overflow: hidden; }
:host([hidden]) { display: none; }
:host(:fullscreen) { width: 100vw; height: 100vh; }
.frame { position: absolute; inset: 0; display: flex; flex-direction: column; }
.view { position: relative; flex: 1 1 auto; min-height: 0; }
canvas { position: absolute; inset: 0; width: 100%; height: 100%; display: block; touch-action: none; outline: none; }
canvas:focus-visible { outline: 2px solid #6aa8ff; outline-offset: -2px; }
.labels { position: absolute; inset: 0; pointer-events: none; overflow: hidden; }
.label { font-size: 11px; padding: 1px 4px; border-radius: 3px; background: rgba(20, 22, 28, .8); color: #ffd166; white-space: nowrap; }
.poster { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; pointer-events: none; }
.status { position: absolute; left: 8px; bottom: 6px; font-size: 12px; opacity: .75; pointer-events: none; }
.messages { position: absolute; left: 6px; right: 6px; top: 6px; display: flex; flex-direction: column; gap: 4px; pointer-events: none; }
.messages p { margin: 0; padding: 4px 8px; border-radius: 4px; background: rgba(120, 30, 30, .9); overflow-wrap: anywhere; max-height: 6.5em; overflow: hidden; pointer-events: auto; }
.messages p.note { background: rgba(110, 85, 20, .92); }
.bar { display: flex; align-items: center; gap: 6px; padding: 4px 6px; background: #1b1d23; flex: 0 0 auto; min-width: 0; flex-wrap: nowrap; }
.bar[hidden] { display: none; }
button, select { font: inherit; color: inherit; background: #2e323c; border: 1px solid #444a57; border-radius: 4px; height: 26px; }
button { width: 28px; padding: 0; display: inline-grid; place-items: center; flex: 0 0 auto; cursor: pointer; }
button:focus-visible, select:focus-visible, input:focus-visible { outline: 2px solid #6aa8ff; outline-offset: 1px; }
svg { width: 14px; height: 14px; fill: currentColor; }
.play .i-pause, .play.playing .i-play { display: none; }
.play.playing .i-pause { display: inline; }
input[type=range] { flex: 1 1 60px; min-width: 40px; margin: 0; accent-color: #6aa8ff; }
/* The frame counter and the clip menu keep their whole width (the counter's widest, the menu's
   longest clip name): where the bar has no room for them they are left out (.squeezed), never cut. */
.frame-label { flex: 0 0 auto; white-space: nowrap; text-align: right; font-variant-numeric: tabular-nums; font-size: 12px; opacity: .85; }
select { flex: 0 0 auto; padding: 0 2px; }
select[hidden], .frame-label[hidden], .fullscreen[hidden], .bar > .squeezed { display: none; }
`;

let sheet = null;

/** One constructed sheet for every element, or a <style> each where those are not supported. */
export function adoptStyles(root) {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = CSS;
  root.append(style);
}
