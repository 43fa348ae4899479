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
//
// Frames (dpviz/frames.py, webui/live_frames.py): the same script serves the hidden frames
// element, whose data is "F", a key, a newline and the zlib-compressed frames of one chart along
// one slider; they are inflated once and kept by key. A chart is told, per slider label, the key
// of its frames and the slider's options; while a slider moves (its aria-valuetext changes, which
// Streamlit's slider does on every step of a drag and every key press, before the value reaches
// the server), every chart with frames along it is redrawn at the slider's position from its
// frames, once per animation frame. After the move the server sends, for a position on the grid,
// a reference to the frame instead of the figure.

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

const FRAMES = (window.__dpvizFrames = window.__dpvizFrames || new Map());
const CHARTS = (window.__dpvizCharts = window.__dpvizCharts || new Set());
const TEXTS = (window.__dpvizTexts = window.__dpvizTexts || new Set());

// a panel drawn as HTML: the server's HTML, and the HTML of a slider's position while it moves
function htmlAt(el, label, index) {
  const s = el.__dpviz.sliders[label];
  if (!s || !current(el, label)) return null;
  const value = s.options[index];
  const doc = FRAMES.get(s.frames);
  const i = doc ? doc.index.get(value) : undefined;
  if (i !== undefined) return doc.html[i];
  return value === s.at ? el.__dpviz.html : null;
}

// frames element ("F"): inflate once, keep by key, tell the charts waiting for them
async function holdFrames(u8) {
  const nl = u8.indexOf(10);
  const key = new TextDecoder().decode(u8.subarray(1, nl));
  if (FRAMES.has(key) || nl + 1 >= u8.length) return; // held already (the server sends the key alone then)
  FRAMES.set(key, null); // being inflated
  const stream = new Blob([u8.subarray(nl + 1)]).stream().pipeThrough(new DecompressionStream("deflate"));
  const doc = JSON.parse(await new Response(stream).text());
  doc.index = new Map(doc.grid.map((v, i) => [v, i]));
  FRAMES.set(key, doc);
  window.dispatchEvent(new CustomEvent("dpviz-frames", { detail: key }));
}

// the frame at position i: the base with that position's patch (dpviz.frames.apply)
function frameAt(doc, i) {
  doc.made = doc.made || new Map(); // the same object for the same frame: a chart showing it is left alone
  if (doc.made.has(i)) return doc.made.get(i);
  const change = doc.patches[i];
  const data = (change.data || doc.base.data).map((t) => Object.assign({}, t));
  if (!change.data) {
    for (const [k, keys] of Object.entries(change.traces || {})) Object.assign(data[+k], keys);
    for (const [k, keys] of Object.entries(change.drop || {})) for (const key of keys) delete data[+k][key];
  }
  const layout = Object.assign({}, doc.base.layout, change.layout || {});
  for (const key of change.layout_drop || []) delete layout[key];
  const figure = { data, layout };
  doc.made.set(i, figure);
  return figure;
}

// whether any of a chart is in the window now (a slider's move redraws only those; the rest when
// they come into view)
function inWindow(gd) {
  const r = gd.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
}

// redraw a chart with a figure now, or when it comes into view
function show(gd, figure, tag, now) {
  const state = gd.__dpviz;
  if (gd.__dpvizShown === figure && gd.__dpvizShownState === state) return; // already drawn (or on its way)
  gd.__dpvizShownState = state;
  const draw = () => plotly(state.plotly).then((Plotly) => {
    if (gd.__dpviz !== state || gd.__dpvizShown !== figure) return; // a newer figure came meanwhile
    return Plotly.react(gd, figure.data, Object.assign({}, figure.layout, size(gd)), state.config).then(() => {
      gd.__dpvizDrawn = { tag, at: performance.now() };
      gd.dispatchEvent(new CustomEvent("dpviz-drawn", { detail: tag }));
      describeSoon(gd);
    });
  });
  gd.__dpvizShown = figure;
  if (gd._fullLayout && (now === undefined ? gd.__dpvizSeen === false : !now)) {
    gd.__dpvizPending = () => (gd.__dpvizLast = draw());
  } else {
    gd.__dpvizPending = null;
    gd.__dpvizLast = draw();
  }
}

// A chart for people who do not see it: the chart is a figure named by its title, described by a
// text made from what it draws (each curve's run of values, each bar's value, a surface's range),
// and a "Describe this chart" box under it holds that text and, once opened, the data drawn as an
// HTML table. Made from Plotly's own data after each redraw (a frame too), a moment after a
// drag's last redraw rather than on every one.
function plain(html) {
  const el = document.createElement("div");
  el.innerHTML = String(html || "").replace(/<br\s*\/?>/gi, ". ");
  return el.textContent.replace(/\s+/g, " ").trim();
}

function values(a) {
  return a && (ArrayBuffer.isView(a) || Array.isArray(a)) ? Array.from(a) : [];
}

function fmt(v) {
  if (typeof v === "number" && Math.abs(v) < 1e-12) v = 0; // rounding noise, not a value
  return typeof v === "number" ? (Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : +v.toPrecision(4)).toString() : String(v);
}

function trend(y) {
  let up = true, down = true;
  for (let i = 1; i < y.length; i++) {
    if (y[i] < y[i - 1]) up = false;
    if (y[i] > y[i - 1]) down = false;
  }
  return up && down ? "constant at" : up ? "rises" : down ? "falls" : "goes";
}

function axisTitle(gd, id) {
  const ax = gd._fullLayout[(id || "x").replace(/^([xy])(\d*)$/, (m, a, n) => `${a}axis${n}`)];
  return plain(ax && ax.title && ax.title.text) || (id || "x")[0];
}

function chartTitle(gd) {
  return plain(gd._fullLayout && gd._fullLayout.title && gd._fullLayout.title.text) || "Chart";
}

function describe(gd) {
  const title = chartTitle(gd);
  const lines = [];
  for (const t of gd._fullData || []) {
    if (t.visible !== true) continue;
    const name = plain(t.name);
    if (!name) continue; // an unnamed helper trace (a band's lower edge)
    const x = values(t.x), y = values(t.y);
    const z = values(t.z).flatMap((r) => (ArrayBuffer.isView(r) || Array.isArray(r) ? Array.from(r) : [r]));
    const num = (v) => typeof v === "number" && isFinite(v);
    if (z.length) {
      const zs = z.filter(num);
      if (zs.length) lines.push(`${name}: values from ${fmt(Math.min(...zs))} to ${fmt(Math.max(...zs))}.`);
    } else if (y.length && y.length === x.length && y.every((v) => v === null || num(v))) {
      const pts = x.map((v, i) => [v, y[i]]).filter((p) => p[1] !== null);
      if (!pts.length) continue;
      const xs = pts.map((p) => p[0]);
      const ordered = xs.every((v, i) => !i || v >= xs[i - 1]) || xs.every((v, i) => !i || v <= xs[i - 1]);
      if (pts.every((p) => num(p[0])) && pts.length > 2 && !ordered) {
        // a shape (x goes back and forth): where it lies
        const ys = pts.map((p) => p[1]);
        lines.push(`${name}: a shape over ${axisTitle(gd, t.xaxis)} from ${fmt(Math.min(...xs))} to ${fmt(Math.max(...xs))} and ${axisTitle(gd, t.yaxis)} from ${fmt(Math.min(...ys))} to ${fmt(Math.max(...ys))}.`);
      } else if (pts.every((p) => num(p[0])) && pts.length > 2) {
        const ys = pts.map((p) => p[1]);
        const t0 = trend(ys);
        const run = t0 === "constant at" ? `constant at ${fmt(ys[0])}` : `${t0} from ${fmt(ys[0])} to ${fmt(ys[ys.length - 1])}`;
        lines.push(`${name}: ${axisTitle(gd, t.yaxis)} ${run} as ${axisTitle(gd, t.xaxis)} goes from ${fmt(pts[0][0])} to ${fmt(pts[pts.length - 1][0])}.`);
      } else {
        const shown = pts.slice(0, 8).map((p) => `${fmt(p[0])}: ${fmt(p[1])}`).join("; ");
        lines.push(`${name}: ${shown}${pts.length > 8 ? `; and ${pts.length - 8} more` : ""}.`);
      }
    }
  }
  return { title, text: lines.slice(0, 12).join(" ") + (lines.length > 12 ? ` And ${lines.length - 12} more series.` : "") };
}

function table(gd) {
  const rows = [];
  for (const t of gd._fullData || []) {
    if (t.visible !== true) continue;
    const x = values(t.x), y = values(t.y);
    for (let i = 0; i < Math.min(x.length, y.length, 200); i++) rows.push([plain(t.name) || t.type, x[i], y[i]]);
  }
  const esc = (v) => plain(v === null || v === undefined ? "" : fmt(v));
  const head = `<tr><th scope="col">series</th><th scope="col">${esc(axisTitle(gd, "x"))}</th><th scope="col">${esc(axisTitle(gd, "y"))}</th></tr>`;
  const body = rows.map((r) => `<tr><th scope="row">${esc(r[0])}</th><td>${esc(r[1])}</td><td>${esc(r[2])}</td></tr>`).join("");
  const caption = `<caption>Data drawn in: ${esc(chartTitle(gd))} (at most 200 points per series; the CSV below holds the chart's whole table)</caption>`;
  return `<table class="dpviz-table">${caption}<thead>${head}</thead><tbody>${body}</tbody></table>`;
}

let DESCRIBED = 0;
function describeSoon(gd) {
  clearTimeout(gd.__dpvizDescribe);
  gd.__dpvizDescribe = setTimeout(() => {
    const box = gd.__dpvizBox;
    if (!box || !gd._fullLayout) return;
    const d = describe(gd);
    gd.setAttribute("role", "figure");
    gd.setAttribute("aria-label", d.title);
    box.querySelector(".dpviz-summary").textContent = d.text || "No data drawn.";
    if (box.open) box.querySelector(".dpviz-data").innerHTML = table(gd);
  }, 150);
}

function describeBox(gd, parent) {
  if (gd.__dpvizBox) return;
  const id = `dpviz-describe-${++DESCRIBED}-${Date.now().toString(36)}`;
  const box = document.createElement("details");
  box.className = "dpviz-describe";
  box.style.fontSize = "0.9rem";
  box.innerHTML =
    `<summary>Describe this chart: text and data table</summary><p class="dpviz-summary" id="${id}"></p>` +
    // a scrolling box a keyboard can reach (WCAG: scrollable regions are focusable)
    `<div class="dpviz-data" tabindex="0" role="region" aria-label="data table" style="max-height:22em;overflow:auto"></div>`;
  box.addEventListener("toggle", () => {
    if (box.open) box.querySelector(".dpviz-data").innerHTML = table(gd);
  });
  parent.appendChild(box);
  gd.setAttribute("aria-describedby", id);
  gd.__dpvizBox = box;
}

// where each slider is (label -> option index), as last seen; before its first move, where the
// server drew the charts that follow it
const AT = new Map();
function known(label) {
  if (AT.has(label)) return AT.get(label);
  for (const el of [...CHARTS, ...TEXTS]) {
    const s = el.__dpviz.sliders[label];
    if (s) return s.options.indexOf(s.at);
  }
  return undefined;
}

// whether the frames of an element along `label` hold for where the other sliders are: each
// other slider it follows still shows the value the server drew it at (else they are frames of
// another setting, until the server's answer brings this setting's); with `self`, every slider,
// the one of `label` too (whether a server's drawing is of where the sliders are now)
function current(el, label, self = false) {
  for (const [other, s] of Object.entries(el.__dpviz.sliders)) {
    if ((self || other !== label) && AT.has(other) && s.options[AT.get(other)] !== s.at) return false;
  }
  return true;
}

// the figure a chart shows at a slider's option index (null: nothing to draw from here)
function figureAt(gd, label, index) {
  const s = gd.__dpviz.sliders[label];
  if (!s || !current(gd, label)) return null;
  const value = s.options[index];
  const doc = FRAMES.get(s.frames);
  const i = doc ? doc.index.get(value) : undefined;
  if (i !== undefined) return frameAt(doc, i);
  if (value !== s.at) return null;
  return gd.__dpviz.figure || refFigure(gd.__dpviz.ref);
}

// the figure a server's reference stands for (a frame along another slider), if the browser holds it
function refFigure(ref) {
  const doc = ref && FRAMES.get(ref.frames);
  const i = doc ? doc.index.get(ref.value) : undefined;
  return i === undefined ? null : frameAt(doc, i);
}

// every slider move: the latest position per label, drawn at once when nothing was drawn in the
// last animation frame (a key press), else at the next one (a drag: the moves in between are skipped)
const MOVED = new Map();
function follow() {
  cancelAnimationFrame(window.__dpvizMoveFrame);
  clearTimeout(window.__dpvizMoveTimer);
  window.__dpvizMoveFrame = null;
  window.__dpvizFollowed = performance.now();
  for (const [label, index] of MOVED) {
    for (const gd of CHARTS) {
      if (!gd.isConnected) {
        CHARTS.delete(gd);
        continue;
      }
      const figure = figureAt(gd, label, index);
      if (figure) show(gd, figure, `${label}=${index}`, inWindow(gd));
    }
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

function watchSliders() {
  if (window.__dpvizSliderWatch) return;
  window.__dpvizSliderWatch = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target;
      if (el.tagName === "INPUT" && el.type === "range" && el.getAttribute("aria-label")) {
        // a move, not Streamlit drawing the slider again where it was
        const label = el.getAttribute("aria-label");
        if (known(label) !== +el.value) MOVED.set(label, +el.value);
        AT.set(label, +el.value);
      }
    }
    if (!MOVED.size || window.__dpvizMoveFrame) return;
    if (performance.now() - (window.__dpvizFollowed || 0) > 20) follow();
    else {
      // the next animation frame, or in 32 ms if the page draws none meanwhile (a tab in the background)
      window.__dpvizMoveFrame = requestAnimationFrame(follow);
      window.__dpvizMoveTimer = setTimeout(follow, 32);
    }
  });
  window.__dpvizSliderWatch.observe(document.body, { subtree: true, attributes: true, attributeFilter: ["aria-valuetext"] });
}

export default function ({ data: bytes, parentElement, setTriggerValue }) {
  const u8 = new Uint8Array(bytes);
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
    el.innerHTML = doc.html;
    el.__dpvizShown = doc.html;
    if (Object.keys(doc.sliders).length) {
      TEXTS.add(el);
      watchSliders();
    }
    return;
  }
  if (u8[0] === 80) {
    // "P": frames still being computed; ask the server again in 2 s (a run of the live section)
    // (never while the page runs: a rerun asked for then would interrupt that run)
    const ask = () => {
      if (document.querySelector('[data-testid="stStatusWidget"]')) parentElement.__dpvizAsk = setTimeout(ask, 2000);
      else setTriggerValue("check", Date.now());
    };
    parentElement.__dpvizAsk = setTimeout(ask, 2000);
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
  const state = (gd.__dpviz = {
    height: data.height, config, plotly: data.plotly, figure: data.figure || null, ref: data.ref || null,
    sliders: data.sliders || {},
  });
  if (Object.keys(state.sliders).length) {
    CHARTS.add(gd);
    watchSliders();
  }
  if (Object.keys(state.sliders).some((label) => !current(gd, label, true))) {
    // a late answer: a slider has moved on since this run began, and the chart shows its frame of
    // where the slider is now; the answer to the last move will come
  } else if (data.figure) {
    show(gd, data.figure, "server");
  } else if (data.ref) {
    // a position on the grid: the frame the browser holds (or will, when its element arrives)
    const drawRef = () => {
      const figure = refFigure(data.ref);
      if (!figure || gd.__dpviz !== state) return false;
      show(gd, figure, "server-ref");
      return true;
    };
    if (!drawRef()) {
      const wait = (e) => e.detail === data.ref.frames && drawRef() && window.removeEventListener("dpviz-frames", wait);
      window.addEventListener("dpviz-frames", wait);
    }
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
