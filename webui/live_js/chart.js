import { CHARTS, FRAMES, TEXTS } from "./state.js";
import { decodedData, framesMessage } from "./frames.js";
import { fitted, fittedData, sized } from "./text_fit.js";
import { describeBox, describeSoon } from "./describe.js";
import { current, refFigure } from "./positions.js";
import { SHOTS, dropShot, noteShown, pageRuns, planSoon } from "./shots.js";
import { keepChartsClearOfPanel, watchSliders } from "./sliders.js";
import { fetchFrames, holdBody, planAheadIdle, upgrade } from "./fetch_frames.js";
import { firstTurn } from "./first_draws.js";
import { watchScrollers } from "./regions.js";

// dpviz's chart element (webui/plotly_element.py): a Plotly chart that keeps its <div> from one
// run of the page to the next and redraws it with Plotly.react, which updates only what changed,
// instead of Streamlit's Plotly element, whose identity follows its figure, so that a changed
// figure is a new element, mounted and drawn from scratch (Plotly.newPlot) on every slider move.
//
// Drawn as Streamlit draws a chart without a theme: the figure as sent, the container's width,
// the figure's height, Plotly's mode bar without the logo, the cloud, lasso and box-select
// buttons, plus a full-screen button. plotly.js is dpviz's own bundle, or else the copy Streamlit
// ships (the URLs the server sends in `data.plotly`, tried in order), loaded once per tab. The
// chart keeps the class and test id of Streamlit's element, so that selectors written for it (the
// browser tests', a user's CSS) find dpviz's charts too.
//
// Frames (dpviz/frames.py, webui/live_frames.py): the same script serves the hidden frames
// element, whose data is "F", a key, a newline and the zlib-compressed frames of one chart along
// one slider; they are inflated once and kept by key. A chart is told, per slider label, the key
// of its frames and the slider's options; while a slider moves (its aria-valuetext changes, which
// Streamlit's slider does on every step of a drag and every key press, before the value reaches
// the server), every chart with frames along it is redrawn at the slider's position from its
// frames, once per animation frame. After the move the server sends, for a position on the grid,
// a reference to the frame instead of the figure.

const ASK_MS = 2000; // (0.5 s, then every 1 s, made a page rerun without pause under load: its sliders could not be found)
// when this page last asked the server for frames (on the window: a browser test holds the asks off)
const ASK_STATE = (window.__dpvizAskState = window.__dpvizAskState || { last: -Infinity });

const FULLSCREEN = {
  width: 448,
  height: 512,
  path: "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V352z",
};

// plotly.js, loaded once per tab from the first of `urls` (a module that sets window.Plotly) that
// loads: dpviz's own bundle gzipped, then as it is, where the server serves them, then Streamlit's
// copy (webui/plotly_bundle.py). A single URL is taken as a list of one.
export function plotly(urls) {
  if (!window.__dpvizPlotly) {
    const tried = [].concat(urls || []);
    const next = (i) => {
      if (window.Plotly) return Promise.resolve(window.Plotly);
      if (i >= tried.length) return Promise.reject(new Error("plotly.js could not be loaded from " + tried.join(", ")));
      const url = new URL(tried[i], document.baseURI).href;
      return (url.endsWith(".gz") ? importPacked(url) : import(url)).then(
        () => window.Plotly || next(i + 1),
        () => next(i + 1),
      );
    };
    window.__dpvizPlotly = next(0);
  }
  return window.__dpvizPlotly;
}

// a module sent gzipped as an archive (which the server does not compress again per request):
// unpacked here and imported from the page's memory; a browser without DecompressionStream
// fails here and takes the next source
async function importPacked(url) {
  const got = await fetch(url);
  if (!got.ok) throw new Error(`${url}: ${got.status}`);
  const text = await new Response(got.body.pipeThrough(new DecompressionStream("gzip"))).text();
  const module = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    await import(module);
  } finally {
    URL.revokeObjectURL(module);
  }
}

// Charts out of view are redrawn when they come into view (200 px ahead), not on every move: one
// watcher per scrolling box.
function onScreen(gd) {
  const root = scroller(gd);
  const watchers = (window.__dpvizOnScreen = window.__dpvizOnScreen || new Map());
  if (!watchers.has(root)) {
    watchers.set(root, new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          e.target.__dpvizSeen = e.isIntersecting;
          if (e.isIntersecting && CHARTS.has(e.target)) planSoon();
          const pending = e.isIntersecting && e.target.__dpvizPending;
          if (pending) {
            e.target.__dpvizPending = null;
            pending();
          }
        }
      },
      { root, rootMargin: "200px 0px" },
    ));
  }
  return watchers.get(root);
}

// the page's scrolling box (Streamlit scrolls its main section, not the window)
function scroller(el) {
  for (let e = el.parentElement; e; e = e.parentElement) {
    const y = getComputedStyle(e).overflowY;
    if (y === "auto" || y === "scroll") return e;
  }
  return null;
}

// whether a chart's container has no width now: hidden, or taken off the page (Streamlit removes
// the quick first answer's element when the whole answer comes). Such a chart keeps the width it
// was drawn at (size): drawn at the least width, a legend put under the plot in rows taller than
// the chart made Plotly throw "Something went wrong with axis scaling" from the size watcher. A
// drawing is not held back for a width to come (nothing might tell it: the container's width can
// come back the same); the size watcher fits the chart when its width changes
function noWidth(gd) {
  // (an element off the page has no layout: its container's clientWidth is 0 too)
  return document.fullscreenElement !== gd && !(gd.parentElement && gd.parentElement.clientWidth > 0);
}

const UNSEEN_WIDTH = 700; // a chart never drawn, in a container with no width: fitted once it has one

export function size(gd) {
  if (document.fullscreenElement === gd) return { width: window.innerWidth, height: window.innerHeight };
  const width = noWidth(gd)
    ? (gd._fullLayout && gd._fullLayout.width) || UNSEEN_WIDTH
    : Math.max(gd.parentElement.clientWidth, 100);
  return { width, height: gd.__dpviz.height };
}

// frames element ("F"): inflate once, keep by key, tell the charts waiting for them
async function holdFrames(u8) {
  const { key, body } = framesMessage(u8);
  if (body) await holdBody(key, body); // (without a body: held already, the server sends the key alone)
}

// whether a first drawing of a chart out of the window waits (first_draws.js): while the page
// runs, while a slider is dragged, and just after a key press (as a shot does)
function belowWaits() {
  return pageRuns() || SHOTS.dragging || performance.now() < (SHOTS.quiet || 0);
}

// whether any of a chart is in the window now (a slider's move redraws only those; the rest when
// they come into view)
export function inWindow(gd) {
  const r = gd.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
}

// After a draw: a legend placed under the plot by fitLayout (from estimated tick label and axis
// title heights) may meet the x axis's texts as Plotly drew them (turned labels, powers of ten);
// then the chart is drawn once more with the legend that much lower, and the amount kept for
// every later figure of this chart at this size.
function settleLegend(gd, box) {
  const legend = gd.querySelector(".legend");
  const key = `${box.width}x${box.height}`;
  gd.__dpvizShift = gd.__dpvizShift || new Map();
  if (!legend || !(gd.layout.legend && gd.layout.legend.y < 0) || gd.__dpvizShift.get(`${key}:done`)) return false;
  gd.__dpvizShift.set(`${key}:done`, true);
  let low = -Infinity;
  for (const t of gd.querySelectorAll('.xaxislayer-above text, [class^="g-x"][class$="title"] text')) {
    const r = t.getBoundingClientRect();
    if (r.height) low = Math.max(low, r.bottom);
  }
  const overlap = Math.ceil(low + 6 - legend.getBoundingClientRect().top);
  if (!(overlap > 0)) return false;
  gd.__dpvizShift.set(key, (gd.__dpvizShift.get(key) || 0) + overlap);
  return true;
}

// after a draw: the left and right margins Plotly gave the chart, kept as the least for its next
// figures at this size (sized)
export function keepSides(gd, box, drawn = gd) {
  const got = drawn._fullLayout && drawn._fullLayout._size;
  if (!got) return;
  gd.__dpvizSides = gd.__dpvizSides || new Map();
  const key = `${box.width}x${box.height}`;
  const had = gd.__dpvizSides.get(key) || { l: 0, r: 0 };
  gd.__dpvizSides.set(key, { l: Math.max(had.l, Math.round(got.l)), r: Math.max(had.r, Math.round(got.r)) });
}

// a chart drawn again at a new size, its texts fitted to the new width
function refit(gd, box) {
  const figure = gd.__dpvizShown;
  if (!figure || !figure.layout) return void window.Plotly.relayout(gd, box);
  window.Plotly.react(gd, fittedData(figure, box.width), sized(fitted(figure, box.width, box.height), box, gd), gd.__dpviz.config);
}

// a chart says what it shows now: its tag (a slider's position, or which of the server's messages
// it drew) and the message's state, kept as gd.__dpvizDrawn and told as a "dpviz-drawn" event
export function sayDrawn(gd, tag, state) {
  gd.__dpvizDrawn = { tag, at: performance.now(), state };
  gd.dispatchEvent(new CustomEvent("dpviz-drawn", { detail: tag }));
}

// redraw a chart with a figure now, or when it comes into view
export function show(gd, figure, tag, now) {
  const state = gd.__dpviz;
  noteShown(gd);
  if (gd.__dpvizShown === figure && gd.__dpvizShownState === state) {
    // already drawn (or on its way). A shot of another position shown over it since (a key's move
    // away, then back here before the server answered) is taken away, so the chart shows this
    // figure again: said as drawn (the move back drew nothing else, and told no one) once its drawing
    // is done, unless a newer drawing came meanwhile or it waits to come into view
    const shot = gd.__dpvizShot;
    if (shot && shot.figure !== figure && !gd.__dpvizPending) {
      const order = gd.__dpvizDrawOrder;
      const shotOrder = gd.__dpvizShotOrder; // (a shot shown after this call is the chart's)
      Promise.resolve(gd.__dpvizLast).then(() => {
        if (gd.__dpvizDrawOrder !== order || gd.__dpvizShown !== figure || gd.__dpvizShotOrder !== shotOrder) return;
        gd.__dpvizShownTag = tag;
        sayDrawn(gd, tag, state);
      });
    }
    return void dropShot(gd);
  }
  gd.__dpvizShownState = state;
  // this drawing's number among the chart's drawings. A newer drawing asked for while this one was
  // drawn (a newer figure, or the same figure for a newer message of the server) is drawn by its
  // own call: this one neither draws again (the legend's second pass, issued after the newer
  // call, would put the older figure back over it) nor says it is the one drawn (its end, coming
  // after the newer one's, would leave the older message's tag as the chart's). A message that
  // only replaced the chart's state and asked for no drawing (the late answer to the last key
  // press) does not supersede it: the key's frame drawn then is on screen, and is said, described
  // and given its legend pass now, not once the server's answer to that press draws it again
  const order = (gd.__dpvizDrawOrder = (gd.__dpvizDrawOrder || 0) + 1);
  const superseded = () => gd.__dpvizDrawOrder !== order;
  const draw = () => plotly(state.plotly).then((Plotly) => firstTurn(gd, () => {
    if (superseded()) return; // a newer drawing was asked for meanwhile
    const box = size(gd);
    const data = fittedData(figure, box.width);
    return Plotly.react(gd, data, sized(fitted(figure, box.width, box.height), box, gd), state.config).then(() => {
      if (!superseded() && settleLegend(gd, box)) return Plotly.react(gd, data, sized(fitted(figure, box.width, box.height), box, gd), state.config);
    }).then(() => {
      if (superseded()) return;
      keepSides(gd, box);
      sayDrawn(gd, tag, state);
      describeSoon(gd);
      // shots planned once it is drawn: a plan made while its first drawing waited for plotly.js
      // found no chart to shoot, and nothing planned again (a page that made no shot at all)
      if (CHARTS.has(gd)) planSoon();
    });
  }, inWindow, belowWaits));
  gd.__dpvizShown = figure;
  gd.__dpvizShownTag = tag; // (sliders.js catchUp: a chart showing a position's frame is left alone)
  if (gd._fullLayout && (now === undefined ? gd.__dpvizSeen === false : !now)) {
    gd.__dpvizPending = () => (gd.__dpvizLast = draw());
  } else {
    gd.__dpvizPending = null;
    gd.__dpvizLast = draw();
  }
  dropShot(gd);
}


export default function ({ data: bytes, parentElement, setTriggerValue }) {
  const u8 = new Uint8Array(bytes);
  watchScrollers(); // (once per tab: wide formulas reachable by keyboard)
  clearTimeout(parentElement.__dpvizAsk); // an element that was asking for its frames no longer does
  if (u8[0] === 70) return void holdFrames(u8); // "F": a frames element
  if (u8[0] === 84) {
    // "T": a panel drawn as HTML, which follows its sliders
    const doc = JSON.parse(new TextDecoder().decode(u8.subarray(1)));
    let el = parentElement.querySelector(":scope > .dpviz-html");
    if (!el) {
      el = document.createElement("div");
      el.className = "dpviz-html";
      parentElement.appendChild(el);
    }
    el.__dpviz = { sliders: doc.sliders, html: doc.html };
    upgrade(doc.sliders); // fetched frames too
    el.innerHTML = doc.html;
    el.__dpvizShown = doc.html;
    if (Object.keys(doc.sliders).length) {
      TEXTS.add(el);
      watchSliders();
    }
    return;
  }
  if (u8[0] === 80) {
    // "P": frames still being computed (its lines: the key, the run's count, and where the server
    // will put them as files, or null). Fetch the files as soon as they are there
    // (fetch_frames.js), and ask the server again (a run of the live section) in 2 s, unless the
    // files brought the whole set meanwhile. Never while the page runs: a rerun asked for then
    // would interrupt that run; nor during a drag, which asks the server nothing until it is let go.
    const lines = new TextDecoder().decode(u8.subarray(1)).split("\n");
    const key = lines[0];
    let urls = null;
    try {
      urls = JSON.parse(lines[2] || "null");
    } catch (err) {
      urls = null;
    }
    fetchFrames(key, urls);
    const wait = ASK_MS;
    // one ask for the whole page at a time: the run it causes sends every waiting chart its "P"
    // again (or its frames), which sets each one's timer afresh; every waiting chart asking on its
    // own made N reruns at once, each stopping the last (a page with ten charts waiting reran
    // without pause, and its sliders could not be used)
    const ask = () => {
      if (FRAMES.get(key)) return; // fetched: the page's next run finds them held
      const busy = pageRuns() || SHOTS.dragging || performance.now() - ASK_STATE.last < wait;
      if (busy) {
        parentElement.__dpvizAsk = setTimeout(ask, wait);
      } else {
        ASK_STATE.last = performance.now();
        setTriggerValue("check", Date.now());
      }
    };
    parentElement.__dpvizAsk = setTimeout(ask, wait);
    return;
  }
  const data = JSON.parse(new TextDecoder().decode(u8));
  let gd = parentElement.querySelector(":scope > .dpviz-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "dpviz-chart stPlotlyChart";
    gd.dataset.testid = "stPlotlyChart";
    parentElement.appendChild(gd);
    onScreen(gd).observe(gd);
    describeBox(gd, parentElement);
  }
  keepChartsClearOfPanel(); // (at every chart's update, with frames or without: the panel may have been drawn again)
  const config = Object.assign({}, data.config, {
    modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"],
    modeBarButtonsToAdd: [
      {
        name: "Fullscreen",
        icon: FULLSCREEN,
        click: () => (document.fullscreenElement ? document.exitFullscreen() : gd.requestFullscreen()),
      },
    ],
  });
  if (data.figure) decodedData(data.figure.data);
  const state = (gd.__dpviz = {
    height: data.height, config, plotly: data.plotly, figure: data.figure || null, ref: data.ref || null,
    sliders: data.sliders || {},
  });
  upgrade(state.sliders); // fetched frames too
  if (Object.keys(state.sliders).length) {
    CHARTS.add(gd);
    watchSliders();
    if (Object.values(state.sliders).some((s) => s.aheadIdle)) planAheadIdle(); // (the sets one key step ahead)
  }
  if (Object.keys(state.sliders).some((label) => !current(gd, label, true))) {
    // a late answer: a slider has moved on since this run began, and the chart shows its frame of
    // where the slider is now; the answer to the last move will come
  } else if (data.figure) {
    show(gd, data.figure, "server");
    if (CHARTS.has(gd)) planSoon();
  } else if (data.ref) {
    // a position on the grid: the frame the browser holds (or will, when its element arrives)
    const drawRef = () => {
      const figure = refFigure(data.ref);
      if (!figure || gd.__dpviz !== state) return false;
      show(gd, figure, "server-ref");
      planSoon();
      return true;
    };
    if (!drawRef()) {
      const wait = (e) => e.detail === data.ref.frames && drawRef() && window.removeEventListener("dpviz-frames", wait);
      window.addEventListener("dpviz-frames", wait);
    }
  }
  if (!gd.__dpvizResize) {
    gd.__dpvizResize = new ResizeObserver(() => {
      if (!gd._fullLayout || !window.Plotly) return; // (no width: size keeps the width drawn, no change)
      const s = size(gd);
      if (s.width !== gd._fullLayout.width || s.height !== gd._fullLayout.height) {
        refit(gd, s);
        planSoon(); // shots at the new size
      }
    });
    gd.__dpvizResize.observe(parentElement);
    gd.addEventListener("fullscreenchange", () => refit(gd, size(gd)));
  }
}
