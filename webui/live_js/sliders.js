import { CHARTS, TEXTS } from "./state.js";
import { AT, aheadAt, figureAt, htmlAt, known, setOf } from "./positions.js";
import { fetchAhead } from "./fetch_frames.js";
import { KEY_MOVE, KEY_SETTLE, SHOTS, SHOT_QUIET, drawShown, endDrag, pageRuns, planShots, shotKey, showShot } from "./shots.js";
import { inWindow, show, size } from "./chart.js";

function watchDrags() {
  if (window.__dpvizDragWatch) return;
  window.__dpvizDragWatch = true;
  const slider = (e) => e.target && e.target.closest && e.target.closest('[data-testid="stSlider"]');
  const labelOf = (el) => {
    const input = el && el.querySelector('input[type="range"][aria-label]');
    return input ? input.getAttribute("aria-label") : null;
  };
  window.addEventListener("pointerdown", (e) => {
    if (!slider(e)) return;
    SHOTS.dragging = true;
    DRAGGED_FROM.clear();
  }, true);
  window.addEventListener("pointerup", endDrag, true);
  window.addEventListener("pointercancel", endDrag, true);
  window.addEventListener("blur", endDrag);
  // let go outside the window: the next move over the page, with no button down, ends the drag
  window.addEventListener("pointermove", (e) => { if (SHOTS.dragging && e.buttons === 0) endDrag(); }, true);
  const intent = (e) => {
    const el = slider(e);
    const label = el && labelOf(el);
    if (label && !SHOTS.dragging) planShots(label);
  };
  document.addEventListener("pointerover", intent, true);
  // a key's move is shown from its shot at once (Plotly draws it a moment later): no shot is
  // made in the way of the next key for a moment after each
  window.addEventListener("keydown", (e) => {
    SHOTS.quiet = performance.now() + SHOT_QUIET;
    if (slider(e)) SHOTS.keyAt = performance.now();
  }, true);
}

// after key presses shown from shots: Plotly draws each chart's last position in the chart itself
// once the keys and the page are quiet (the server's answer to the last key usually does it first)
function settleKeys(ms = KEY_SETTLE) {
  clearTimeout(SHOTS.settle);
  SHOTS.settle = setTimeout(() => {
    if (SHOTS.dragging) return; // the drag's end draws them
    if (pageRuns() || performance.now() - (SHOTS.keyAt || 0) < ms) {
      return void settleKeys(300);
    }
    drawShown();
  }, ms);
}

// During a drag, a position with no shot is drawn by Plotly, which holds the tab for 40-80 ms on
// ADePT's and HoHo's charts while the mouse crosses five positions, shots among them, unseen. So
// when the chart changed less than DRAG_WAIT ms ago and a shot lies within DRAG_NEAR positions,
// the drawing waits: the drag's next move most likely shows a shot, and if none has come when the
// wait is up (the mouse stopped there), Plotly draws the position. A drag over few shots is drawn
// as before. (HoHo's ε after a step of λ: 59 of 113 shots held, a 1-s drag showed 7 of them.)
export const DRAG_WAIT = { ms: 120 }; // (an object: Node's tests lengthen it)
const DRAG_NEAR = 3;
function shotNear(gd, label, index, box) {
  if (!gd.__dpvizShots || !gd.__dpvizShots.size) return false;
  const n = gd.__dpviz.sliders[label].options.length;
  for (let d = 1; d <= DRAG_NEAR; d++) {
    for (const i of [index - d, index + d]) if (i >= 0 && i < n && gd.__dpvizShots.has(shotKey(gd, label, i, box))) return true;
  }
  return false;
}
// the shot of a position the drag crossed since its last move, nearest where the slider is now (at
// most DRAG_NEAR back): shown while the position the slider is at waits for its drawing. A drag's
// moves come every 15-40 ms and skip one to three positions (nine after a busy moment), so a shot
// every fourth position was landed on once in three moves; the exact figure of a position a
// moment behind the slider, as a drawing by Plotly would show it, is shown instead of none
export const DRAGGED_FROM = new Map();
function passedShot(gd, label, index, box) {
  const from = DRAGGED_FROM.has(label) ? DRAGGED_FROM.get(label) : index;
  if (from === index) return null; // (never a position the slider has not reached)
  const step = from < index ? -1 : 1;
  for (let i = index + step, k = 0; i !== from && k < DRAG_NEAR; i += step, k++) {
    const shot = gd.__dpvizShots && gd.__dpvizShots.get(shotKey(gd, label, i, box));
    const figure = shot && figureAt(gd, label, i);
    if (figure) {
      shot.figure = figure;
      return { shot, tag: `${label}=${i}` };
    }
  }
  return null;
}
function defer(gd, figure, tag) {
  const wait = { figure, tag };
  gd.__dpvizDeferred = wait;
  setTimeout(() => {
    if (gd.__dpvizDeferred === wait) drawNow(gd, figure, tag, true); // (else a shot or a drawing came meanwhile)
  }, Math.max(0, (gd.__dpvizChangedAt || 0) + DRAG_WAIT.ms - performance.now()));
}
// a chart given to Plotly: a drawing that waited is no longer due, and the chart changed now
function drawNow(gd, figure, tag, now) {
  gd.__dpvizDeferred = null;
  gd.__dpvizChangedAt = performance.now();
  show(gd, figure, tag, now);
}
// the mouse let go: a drawing that waits is drawn now (the drag's end draws the rest)
export function flushDeferred() {
  for (const gd of CHARTS) if (gd.__dpvizDeferred) drawNow(gd, gd.__dpvizDeferred.figure, gd.__dpvizDeferred.tag, true);
}

// every slider move: the latest position per label, drawn at once for a key when nothing was
// drawn in the last animation frame, else at the next one (a drag: the moves in between are skipped)
export const MOVED = new Map();
export function follow() {
  cancelAnimationFrame(window.__dpvizMoveFrame);
  clearTimeout(window.__dpvizMoveTimer);
  window.__dpvizMoveFrame = null;
  window.__dpvizFollowed = performance.now();
  const byShot = SHOTS.dragging || performance.now() - (SHOTS.keyAt || -1e9) < KEY_MOVE;
  // every chart's place and size read before any chart changes: a read after a change would make
  // the browser lay the page out again there and then, once per chart
  const charts = [];
  for (const gd of CHARTS) {
    if (!gd.isConnected) CHARTS.delete(gd);
    else charts.push([gd, inWindow(gd), byShot ? size(gd) : null]);
  }
  for (const [label, index] of MOVED) {
    for (const [gd, seen, box] of charts) {
      const figure = figureAt(gd, label, index);
      if (!figure) continue;
      const shot = byShot && seen && gd.__dpvizShots && gd.__dpvizShots.get(shotKey(gd, label, index, box));
      // the shot of this set at this value: made from this figure, or from the set's nearest part's
      // frame of the same value, which is the same figure (the whole set is put together from the
      // figures its nearest part was; before, such a shot was kept but never shown: a drag of ADePT's
      // ε after a step of n met 20 shots and showed 2). From now on the shot stands for this object.
      if (shot) shot.figure = figure;
      const tag = `${label}=${index}`;
      const passed = !shot && SHOTS.dragging && seen ? passedShot(gd, label, index, box) : null;
      if (shot && showShot(gd, shot, tag)) {
        gd.__dpvizDeferred = null;
        gd.__dpvizChangedAt = performance.now();
        if (!SHOTS.dragging) settleKeys();
      } else if (passed || (SHOTS.dragging && seen && performance.now() - (gd.__dpvizChangedAt || 0) < DRAG_WAIT.ms && shotNear(gd, label, index, box))) {
        if (passed && gd.__dpvizShot !== passed.shot && showShot(gd, passed.shot, passed.tag)) gd.__dpvizChangedAt = performance.now();
        defer(gd, figure, tag);
      } else drawNow(gd, figure, tag, seen);
    }
    if (SHOTS.dragging) DRAGGED_FROM.set(label, index);
    for (const el of TEXTS) {
      if (!el.isConnected) {
        TEXTS.delete(el);
        continue;
      }
      const html = htmlAt(el, label, index);
      if (html !== null && el.__dpvizShown !== html) {
        el.innerHTML = html;
        el.__dpvizShown = html;
      }
    }
  }
  MOVED.clear();
}

// frames received (a file or a frames element): a slider moved while the charts that follow it held
// no frame of its new position (the nearest part still on its way) is drawn from them now, not when
// the server's answer to that move comes (bench_after_step: a press 3 s after another slider moved,
// its frames there 1 s later, drawn only by the server's answer 2 s after the key). A chart that
// already shows that position's frame is left alone; during a drag, the drag's next move does it.
export function catchUp(name) {
  if (SHOTS.dragging) return;
  // where each slider is now, read from the page (not AT: a slider of the same label on a page seen
  // before in this tab left its last position there)
  for (const input of document.querySelectorAll('input[type="range"][aria-label]')) {
    const label = input.getAttribute("aria-label");
    const index = +input.value;
    for (const el of CHARTS) {
      const s = el.__dpviz && el.__dpviz.sliders[label];
      if (!s || setOf(el, label) !== name || s.options[index] === s.at || el.__dpvizShownTag === `${label}=${index}`) continue;
      if (figureAt(el, label, index)) MOVED.set(label, index);
    }
  }
  if (MOVED.size) follow();
}

// slider `label` moved by a key: each chart's set along another slider at the new setting, when the
// server named it one key step ahead (positions.js setOf), is fetched now; the other slider's moves
// are drawn from it before the page's run at the new setting answers. Not during a drag, which
// crosses the positions one step either side of where it began: inflating those sets (1-3 MB of
// JSON each on the ADePT page) held the tab while the drag wanted its frames drawn
export function fetchStepped(label) {
  if (SHOTS.dragging) return;
  for (const el of CHARTS) {
    for (const other of Object.keys(el.__dpviz.sliders)) {
      const step = other !== label && aheadAt(el, other, label);
      if (step) fetchAhead(step[1], step[2]);
    }
  }
}

// A chart brought into view by the keyboard's focus, a link or scrollIntoView stops under the
// sticky slider panel (webui/live.py's STICKY_CSS), not behind it: the page's scroll container
// takes its scroll-padding-top from --dpviz-panel-pad (STICKY_CSS), set here to the panel's lower
// edge, which moves with its height (a phone's sliders wrap; the intro line drawn after the
// sliders) and the header's offset (its CSS top). (On the root element: Streamlit may draw the
// scroll container again, the root stays.) Asked for at every chart element's update and as the
// page scrolls, measured once in the next animation frame, and kept by a ResizeObserver on the
// panel's current wrapper (Streamlit may draw the wrapper again: the next ask finds the new one).
function padNow() {
  const panel = document.querySelector(".st-key-live-panel");
  const sticky = panel && panel.closest("[data-testid='stLayoutWrapper']");
  if (!sticky) return;
  const pad = () => {
    if (!sticky.isConnected) return;
    const px = `${Math.ceil((parseFloat(getComputedStyle(sticky).top) || 0) + sticky.getBoundingClientRect().height)}px`;
    const root = document.documentElement.style;
    if (root.getPropertyValue("--dpviz-panel-pad") !== px) root.setProperty("--dpviz-panel-pad", px);
  };
  pad();
  if (window.__dpvizPanelPad === sticky || typeof ResizeObserver === "undefined") return;
  if (window.__dpvizPanelPadObserver) window.__dpvizPanelPadObserver.disconnect();
  window.__dpvizPanelPad = sticky;
  window.__dpvizPanelPadObserver = new ResizeObserver(pad);
  window.__dpvizPanelPadObserver.observe(sticky);
}

export function keepChartsClearOfPanel() {
  if (typeof requestAnimationFrame !== "function") return void padNow();
  if (!window.__dpvizPadOnScroll) {
    // and as the reader scrolls (a panel drawn again after the charts' last update: its observer lost)
    window.__dpvizPadOnScroll = true;
    document.addEventListener("scroll", keepChartsClearOfPanel, { capture: true, passive: true });
  }
  if (window.__dpvizPadSoon) return;
  window.__dpvizPadSoon = requestAnimationFrame(() => {
    window.__dpvizPadSoon = 0;
    padNow();
  });
}

export function watchSliders() {
  watchDrags();
  if (window.__dpvizSliderWatch) return;
  window.addEventListener("dpviz-frames", (e) => catchUp(e.detail));
  window.__dpvizSliderWatch = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target;
      if (el.tagName === "INPUT" && el.type === "range" && el.getAttribute("aria-label")) {
        // a move, not Streamlit drawing the slider again where it was
        const label = el.getAttribute("aria-label");
        if (known(label) !== +el.value) {
          MOVED.set(label, +el.value);
          SHOTS.lastMoved = label; // (shots.js: the other sliders' shots come first)
        }
        AT.set(label, +el.value);
        fetchStepped(label);
      }
    }
    if (!MOVED.size || window.__dpvizMoveFrame) return;
    // a key's move at once; a drag's in the next animation frame, just before the browser draws
    // it (at once, the charts' changes would be laid out again when the slider reads its own size)
    if (!SHOTS.dragging && performance.now() - (window.__dpvizFollowed || 0) > 20) follow();
    else {
      // the next animation frame, or in 32 ms if the page draws none meanwhile (a tab in the background)
      window.__dpvizMoveFrame = requestAnimationFrame(follow);
      window.__dpvizMoveTimer = setTimeout(follow, 32);
    }
  });
  window.__dpvizSliderWatch.observe(document.body, { subtree: true, attributes: true, attributeFilter: ["aria-valuetext"] });
}
