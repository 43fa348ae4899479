// dpviz's chart element (webui/plotly_element.py): a Plotly chart that keeps its <div> from one
// run of the page to the next and redraws it with Plotly.react, which updates only what changed,
// instead of Streamlit's Plotly element, whose identity follows its figure, so that a changed
// figure is a new element, mounted and drawn from scratch (Plotly.newPlot) on every slider move.
//
// Drawn as Streamlit draws a chart without a theme: the figure as sent, the container's width,
// the figure's height, Plotly's mode bar without the logo, the cloud, lasso and box-select
// buttons, plus a full-screen button. plotly.js is the very copy Streamlit ships (the module of
// its Plotly element, whose URL the server sends in `data.plotly`), loaded once per tab. The
// chart keeps the class and test id of Streamlit's element, so that selectors written for it (the
// browser tests', a user's CSS) find dpviz's charts too.

const FULLSCREEN = {
  width: 448,
  height: 512,
  path: "M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V352z",
};

function plotly(url) {
  if (!window.__dpvizPlotly) {
    window.__dpvizPlotly = window.Plotly
      ? Promise.resolve(window.Plotly)
      : import(new URL(url, document.baseURI).href).then(() => window.Plotly);
  }
  return window.__dpvizPlotly;
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

function size(gd) {
  const full = document.fullscreenElement === gd;
  return {
    width: full ? window.innerWidth : Math.max(gd.parentElement.clientWidth, 100),
    height: full ? window.innerHeight : gd.__dpviz.height,
  };
}

export default function ({ data: bytes, parentElement }) {
  const data = JSON.parse(new TextDecoder().decode(bytes));
  let gd = parentElement.querySelector(":scope > .dpviz-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "dpviz-chart stPlotlyChart";
    gd.dataset.testid = "stPlotlyChart";
    parentElement.appendChild(gd);
    onScreen(gd).observe(gd);
  }
  const figure = data.figure;
  const state = (gd.__dpviz = { height: data.height });
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
  const draw = () => plotly(data.plotly).then((Plotly) => {
    if (gd.__dpviz !== state) return; // a newer figure came meanwhile
    return Plotly.react(gd, figure.data, Object.assign({}, figure.layout, size(gd)), config);
  });
  // a chart drawn before and out of view now is redrawn when it comes into view
  if (gd._fullLayout && gd.__dpvizSeen === false) {
    gd.__dpvizPending = () => (gd.__dpvizLast = draw());
  } else {
    gd.__dpvizPending = null;
    gd.__dpvizLast = draw();
  }
  if (!gd.__dpvizResize) {
    gd.__dpvizResize = new ResizeObserver(() => {
      if (!gd._fullLayout || !window.Plotly) return;
      const s = size(gd);
      if (s.width !== gd._fullLayout.width || s.height !== gd._fullLayout.height) window.Plotly.relayout(gd, s);
    });
    gd.__dpvizResize.observe(parentElement);
    gd.addEventListener("fullscreenchange", () => window.Plotly.relayout(gd, size(gd)));
  }
}
