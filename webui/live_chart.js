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
  planSoon();
}

// Typed arrays ({dtype, bdata}: dpviz.frames.typed_arrays, Plotly's own JSON form) decoded into
// JavaScript typed arrays once, in place. Plotly decodes such a spec itself, but anew on every
// Plotly.react, so each draw saw every trace's data as new and drew the whole chart again (an
// unchanged chart cost ADePT's ε chart 19 ms a draw); decoded once, a frame's unchanged traces
// keep their arrays from frame to frame and Plotly leaves them be.
const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array, u2: Uint16Array, i1: Int8Array, u1: Uint8Array };
function typedArray(spec) {
  const kind = TYPED[String(spec.dtype).replace(/^[<>|=]/, "")];
  if (!kind || spec.shape !== undefined || typeof spec.bdata !== "string") return spec; // 2-D and others: Plotly's
  const text = atob(spec.bdata);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new kind(bytes.buffer, 0, bytes.length / kind.BYTES_PER_ELEMENT);
}
function decodeTyped(obj, depth = 0) {
  if (!obj || typeof obj !== "object" || depth > 3) return obj;
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v)) {
      if ("bdata" in v && "dtype" in v) obj[k] = typedArray(v);
      else decodeTyped(v, depth + 1);
    }
  }
  return obj;
}
function decodedData(data) {
  if (Array.isArray(data) && !data.__decoded) {
    data.forEach((t) => decodeTyped(t));
    Object.defineProperty(data, "__decoded", { value: true });
  }
  return data;
}

// the frame at position i: the base with that position's patch (dpviz.frames.apply)
function frameAt(doc, i) {
  doc.made = doc.made || new Map(); // the same object for the same frame: a chart showing it is left alone
  if (doc.made.has(i)) return doc.made.get(i);
  const change = doc.patches[i];
  decodedData(doc.base.data);
  if (change.data) decodedData(change.data);
  for (const keys of Object.values(change.traces || {})) decodeTyped(keys);
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

// A chart's texts fitted to the width it is drawn at (the rules of dpviz/text_fit.py, which fits
// an exported image): titles, subplot titles and x-axis titles longer than their room wrapped
// between words (a line that is one <sup> tag inside the tag, at 0.7 of the size), the top and
// bottom margins grown by the lines added. Plotly never wraps; a long title is cut at the edge.
const MEASURE = document.createElement("canvas").getContext("2d");
const SMALL = { sup: 0.7, sub: 0.7, small: 0.8 };
const LINE = 1.3;
const TITLE_PAD = 8;
const GAP = 12;
function textWidth(text, px, family) {
  MEASURE.font = `${px}px ${family}`;
  return MEASURE.measureText(String(text).replace(/<[^>]+>/g, "")).width;
}
function wrapWords(text, px, room, family) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const trial = line ? `${line} ${word}` : word;
    if (line && textWidth(trial, px, family) > room) {
      lines.push(line);
      line = word;
    } else line = trial;
  }
  lines.push(line);
  return lines;
}
function wrapText(text, px, room, family) {
  const out = [];
  for (const line of String(text).split(/<br\s*\/?>/i)) {
    const whole = line.match(/^<(\w+)>([\s\S]*)<\/\1>$/);
    if (whole && SMALL[whole[1]]) out.push(...wrapWords(whole[2], px * SMALL[whole[1]], room, family).map((p) => `<${whole[1]}>${p}</${whole[1]}>`));
    else out.push(...wrapWords(line, px, room, family));
  }
  return out.join("<br>");
}
const lines = (t) => String(t).split(/<br\s*\/?>/i);
const lineCount = (t) => lines(t).length;
function titleOf(obj) {
  if (typeof obj === "string") return [obj, null];
  if (obj && typeof obj === "object") return [String(obj.text || ""), (obj.font || {}).size || null];
  return ["", null];
}
function withTitle(obj, text) {
  return obj && typeof obj === "object" ? Object.assign({}, obj, { text }) : { text };
}
// Plotly spaces every line of a text by its font size, a line in small type too
const blockHeight = (text, px) => lineCount(text) * px * LINE;
const NARROW = 560;
function legendEntries(traces) {
  const names = [], seen = new Set();
  for (const t of traces || []) {
    const key = `${t.legendgroup || t.name}\u0000${t.name}`;
    if (t.name && t.showlegend !== false && !seen.has(key)) {
      seen.add(key);
      names.push(String(t.name));
    }
  }
  return names;
}
function legendHeight(names, px, room, horizontal, family) {
  if (!names.length) return 0;
  let rows = 1, used = 0;
  for (const name of names) {
    const w = textWidth(name, px, family) + 60;
    if (horizontal && used && used + w > room) { rows += 1; used = 0; }
    else if (!horizontal && used) rows += 1;
    used += w;
  }
  return rows * (px * LINE + 8) + 10;
}
// every k-th labelled tick, k the least that gives each label `need` pixels of `span`, at the
// offset that keeps the most powers of ten (0.01, 1, 1,000, 10^k) of a 1-2-5 log axis
const decade = (label) => /^(0\.0*1|1(,?0)*|10<sup>[-−]?\d+<\/sup>)$/.test(String(label));
function thinned(axis, need, span) {
  const labels = axis.ticktext, values = axis.tickvals;
  const k = Math.ceil((need * labels.length) / Math.max(span, 1));
  if (k <= 1) return axis;
  let best = 0, bestCount = -1;
  for (let o = 0; o < k; o++) {
    let c = 0;
    for (let i = o; i < labels.length; i += k) c += decade(labels[i]);
    if (c > bestCount) [best, bestCount] = [o, c];
  }
  const keep = labels.map((_, i) => i).filter((i) => i >= best && (i - best) % k === 0);
  return Object.assign({}, axis, { tickvals: keep.map((i) => values[i]), ticktext: keep.map((i) => labels[i]) });
}
// Side-by-side panels one above the other on a phone: a row of two or three panels at 390 px left
// each a plot of 80 px with its y title over its neighbour. Each panel keeps its plot height
// (within 150..240 px), its axes and its subplot title (moved with it); the chart grows by what
// the panels and the gaps between them need (the plot's new height is in __stackedPlot, made the
// chart's height by fitLayout once the margins are known). Figures with overlaid axes are left.
// A browser-only rule: exported images are drawn at the house width (dpviz/theme.py WIDTH), wider
// than NARROW.
// how many panels stand side by side: the distinct left edges of the x axes' domains
function columnsOf(layout) {
  const starts = Object.keys(layout)
    .filter((k) => /^xaxis\d*$/.test(k) && layout[k] && typeof layout[k] === "object")
    .map((k) => (layout[k].domain || [0, 1])[0].toFixed(3));
  return Math.max(1, new Set(starts).size);
}

// the panels (pairs of axes) of a layout that a phone stacks one per row, or null: panels side by
// side (two columns or more, at most six panels), none drawn over another
function stackable(layout) {
  if (Object.keys(layout).some((k) => /^[xy]axis\d*$/.test(k) && layout[k] && layout[k].overlaying)) return null;
  const pairs = [];
  for (const xk of Object.keys(layout)) {
    const ax = layout[xk];
    if (!/^xaxis\d*$/.test(xk) || !ax || typeof ax !== "object") continue;
    const yk = `yaxis${String(ax.anchor || "y").slice(1)}`;
    const ay = layout[yk];
    if (!ay || typeof ay !== "object" || !ax.domain || !ay.domain) continue;
    pairs.push({ xk, yk, x: ax.domain, y: ay.domain });
  }
  return new Set(pairs.map((p) => p.x[0].toFixed(3))).size < 2 || pairs.length > 6 ? null : pairs;
}

function stacked(layout, width, height, base, family) {
  const pairs = stackable(layout);
  if (!pairs) return layout;
  pairs.sort((a, b) => b.y[1] - a.y[1] || a.x[0] - b.x[0]);
  const margin = layout.margin || {};
  const plot0 = Math.max((height || layout.height || 450) - (margin.t ?? 100) - (margin.b ?? 80), 50);
  const notes = (layout.annotations || []).map((n) => Object.assign({}, n));
  const paperNote = (n) => (n.xref || "paper") === "paper" && (n.yref || "paper") === "paper" && n.showarrow === false;
  const titleNote = (p) => notes.find((n) => paperNote(n) && !n.__moved && Math.abs((n.x ?? 0.5) - (p.x[0] + p.x[1]) / 2) < 1e-3 && Math.abs((n.y ?? 0) - p.y[1]) < 1e-3);
  const room = 0.85 * Math.max(width - (margin.l ?? 80) - (margin.r ?? 80), 50);
  const wrapped = (text, px) => (text ? blockHeight(wrapText(text, px, room, family), px) : 0);
  // under a panel: its x tick labels and x title (wrapped to the full width), then the next
  // panel's subplot title over it
  const gaps = pairs.map((p, i) => {
    if (i === pairs.length - 1) return 0;
    const [xt, xs] = titleOf(layout[p.xk].title);
    const next = titleNote(pairs[i + 1]);
    const ns = next ? (next.font || {}).size || base * 1.14 : 0;
    return Math.round(base * LINE + 10 + wrapped(xt, xs || base) + 14 + (next ? wrapped(String(next.text || ""), ns) : 0) + 8);
  });
  const panels = pairs.map((p) => Math.min(240, Math.max(150, (p.y[1] - p.y[0]) * plot0)));
  const total = panels.reduce((a, b) => a + b, 0) + gaps.reduce((a, b) => a + b, 0);
  const out = Object.assign({}, layout, { __stackedPlot: total });
  let at = 0;
  pairs.forEach((p, i) => {
    const y = [1 - (at + panels[i]) / total, 1 - at / total];
    at += panels[i] + gaps[i];
    const ax = Object.assign({}, layout[p.xk], { domain: [0, 1] });
    const ay = Object.assign({}, layout[p.yk], { domain: y });
    // axes that shared a neighbour's tick labels or title show their own when alone in a row
    if (ax.showticklabels === false && ax.matches) ax.showticklabels = true;
    if (ay.showticklabels === false && ay.matches) ay.showticklabels = true;
    if (!titleOf(ay.title)[0] && ay.matches) {
      const shared = layout[`yaxis${String(ay.matches).slice(1)}`];
      if (shared && titleOf(shared.title)[0]) ay.title = shared.title;
    }
    out[p.xk] = ax;
    out[p.yk] = ay;
    // its subplot title: a paper note centred over the panel, at its top (make_subplots' place)
    const note = titleNote(p);
    if (note) Object.assign(note, { x: 0.5, y: y[1], __moved: true });
  });
  if (notes.length) out.annotations = notes.map(({ __moved, ...n }) => n);
  return out;
}

// a layout's margins: its own, else its template's, else Plotly's defaults
function marginOf(layout) {
  const defaults = (layout.template && layout.template.layout) || {};
  return Object.assign({ l: 80, r: 80, t: 100, b: 80 }, defaults.margin || {}, layout.margin || {});
}

function fitLayout(layout, width, traces, height) {
  const defaults = (layout.template && layout.template.layout) || {};
  const font = Object.assign({}, defaults.font || {}, layout.font || {});
  const base = font.size || 14;
  const family = font.family || "sans-serif";
  if (width < NARROW) layout = stacked(layout, width, height, base, family);
  const out = Object.assign({}, layout);
  const margin = marginOf(layout);
  const left = margin.l, right = margin.r;
  const plot = Math.max(width - left - right, 50);
  const top0 = margin.t;
  let bottom = 0, titleHeight = 0, notesHeight = 0, above = 0; // bottom: what wrapped x titles add
  let [text, size] = titleOf(out.title);
  if (text) {
    size = size || ((defaults.title || {}).font || {}).size || base * 1.2;
    const fitted = wrapText(text, size, width - 0.02 * width - 10, family);
    titleHeight = blockHeight(fitted, size);
    // the title's first line at the top of the chart, its lines downwards (Plotly's "top" anchor
    // is the first line's baseline, hence the line's size in the pad)
    out.title = Object.assign(withTitle(out.title, fitted), { yref: "container", y: 1, yanchor: "top", pad: { t: TITLE_PAD + size } });
  }
  const domains = [];
  for (const key of Object.keys(out)) {
    const axis = out[key];
    if (!key.startsWith("xaxis") || !axis || typeof axis !== "object") continue;
    const [lo, hi] = axis.domain || [0, 1];
    domains.push([lo, hi]);
    [text, size] = titleOf(axis.title);
    if (!text) continue;
    size = size || base;
    const fitted = wrapText(text, size, 0.9 * (hi - lo) * plot, family); // y tick labels may widen the margin
    // a title on top sits above the plot with its tick labels, under the chart's title
    if (axis.side === "top") above = Math.max(above, blockHeight(fitted, size) + base * LINE + 8);
    if (fitted !== text) {
      if (axis.side !== "top") bottom = Math.max(bottom, (lineCount(fitted) - lineCount(text)) * size * LINE);
      out[key] = Object.assign({}, axis, { title: withTitle(axis.title, fitted) });
    }
  }
  const plotHeight = out.__stackedPlot || Math.max((height || out.height || 450) - margin.t - margin.b, 50);
  for (const key of Object.keys(out)) {
    const axis = out[key];
    if (!/^[xy]axis/.test(key) || !axis || typeof axis !== "object") continue;
    const [lo, hi] = axis.domain || [0, 1];
    const span = (hi - lo) * (key[0] === "x" ? plot : plotHeight);
    const labels = axis.ticktext;
    const tickSize = (axis.tickfont || {}).size || base;
    if (labels && axis.tickvals && labels.length > 2 && key[0] === "x") {
      // every k-th labelled tick where the labels would not fit side by side
      out[key] = thinned(axis, Math.max(...labels.map((t) => textWidth(t, tickSize, family))) + 10, span);
    } else if (key[0] === "x" && width < NARROW && span < 300 && !axis.tickvals) {
      // at least four: Plotly's step for three over a range around 0 (±0.04) left only "0"
      out[key] = Object.assign({}, axis, { nticks: Math.max(4, Math.floor(span / 75)) });
      // category labels (a bar chart's) wider than their share of the axis
      const id = key === "xaxis" ? "x" : `x${key.slice(5)}`;
      const cats = new Set();
      for (const t of traces || []) if ((t.xaxis || "x") === id && Array.isArray(t.x) && typeof t.x[0] === "string") t.x.forEach((c) => cats.add(c));
      const widest = Math.max(0, ...[...cats].flatMap((c) => c.split(/<br\s*\/?>/i)).map((c) => textWidth(c, tickSize, family)));
      // where the figure keeps them level (Plotly turns crowded labels itself otherwise), left
      // out: smaller type still met, and turning two-line labels made Plotly place a text at
      // y = -Infinity
      if (cats.size && axis.tickangle != null && axis.tickangle !== "auto" && widest * cats.size > 0.9 * span) {
        out[key].showticklabels = false; // the bars' names stay in the hover and the chart's description
      }
    }
  }
  if (width < NARROW && out.scene && out.scene.camera && out.scene.camera.eye) {
    // a 3-D scene taller than wide: Plotly fits the box to its height and cuts the sides; the
    // camera that much further back
    const [x0, x1] = (out.scene.domain || {}).x || [0, 1];
    const [y0, y1] = (out.scene.domain || {}).y || [0, 1];
    const ratio = ((y1 - y0) * plotHeight) / Math.max((x1 - x0) * plot, 1);
    if (ratio > 1) {
      const f = Math.min(1.5 * ratio, 3.5);
      const eye = out.scene.camera.eye;
      const camera = Object.assign({}, out.scene.camera, { eye: { x: eye.x * f, y: eye.y * f, z: eye.z * f } });
      out.scene = Object.assign({}, out.scene, { camera });
    }
  }
  if (width < NARROW) {
    // side by side panels whose y axes are untitled: a little room between one's last tick label
    // and the next one's first
    for (const key of Object.keys(out)) {
      const axis = out[key];
      if (!key.startsWith("xaxis") || !axis || typeof axis !== "object" || !axis.domain) continue;
      const [lo, hi] = axis.domain;
      if ((lo > 0.001 || hi < 0.999) && !titleOf((out[`yaxis${(axis.anchor || "y").slice(1)}`] || {}).title)[0]) {
        out[key] = Object.assign({}, axis, { domain: [lo + (lo > 0.001 ? 10 / plot : 0), hi - (hi < 0.999 ? 10 / plot : 0)] });
      }
    }
    const legend = Object.assign({}, out.legend || {});
    legend.font = Object.assign({}, legend.font || {}, { size: Math.min((legend.font || {}).size || base, 12) });
    out.legend = legend;
  }
  if (Array.isArray(out.annotations)) {
    out.annotations = out.annotations.map((note) => {
      const t = String(note.text || "");
      if (t && (note.showarrow !== false || note.name === "mark") && width < NARROW) {
        // a label of a point (on an arrow, or a mark beside it): straight under its point and in
        // smaller type on a phone (off to a side, it met the tick labels); beside other panels,
        // whose titles and ticks fill the narrow gaps, left out (the ring marks the point)
        if (columnsOf(out) > 1) return Object.assign({}, note, { visible: false });
        const under = note.showarrow !== false ? { ax: 0, ay: 28 } : { xanchor: "center", yanchor: "top", align: "center", xshift: 0, yshift: -10 };
        return Object.assign({}, note, under, { font: Object.assign({}, note.font || {}, { size: 11 }) });
      }
      if (!t || (note.xref || "paper") !== "paper" || note.showarrow !== false) return note;
      let s = (note.font || {}).size || base;
      const x = note.x ?? 0.5;
      const spans = domains.filter(([lo, hi]) => lo - 1e-9 <= x && x <= hi + 1e-9).map(([lo, hi]) => hi - lo);
      const room = 0.85 * Math.min(...(spans.length ? spans : [1])) * plot; // a gap between neighbours' titles
      const longest = Math.max(...t.replace(/<[^>]+>/g, " ").split(/\s+/).filter(Boolean).map((w) => textWidth(w, s, family)));
      let fittedNote = note;
      if (longest > room) {
        // a word longer than its panel is wide: smaller type (down to 8 px)
        s = Math.max(8, (s * room) / longest);
        fittedNote = Object.assign({}, note, { font: Object.assign({}, note.font || {}, { size: s }) });
      }
      const fitted = wrapText(t, s, room, family);
      if (fitted !== t) {
        fittedNote = Object.assign({}, fittedNote, { text: fitted });
        if ((note.y || 0) >= 1) fittedNote.yshift = Math.max(note.yshift || 0, 6); // clear of the tick label at the plot's top
      }
      if ((note.y || 0) >= 1) notesHeight = Math.max(notesHeight, blockHeight(fitted, s) + (fittedNote.yshift || 0));
      return fittedNote;
    });
  }
  const bottom0 = margin.b;
  let low = bottom0 + Math.round(bottom);
  const legend = Object.assign({}, out.legend || {});
  const names = out.showlegend !== false ? legendEntries(traces) : [];
  let beside = (legend.x ?? 1.02) > 1 && legend.y == null;
  const px = (legend.font || {}).size || base;
  const widest = Math.max(0, ...names.map((n) => textWidth(n, px, family))) + 60;
  // a legend inside the plot wider than the room right of its x: Plotly pushes the margins to fit
  // it, and the plot shrinks to a sliver (a phone)
  const lx = legend.x ?? 1.02;
  const crowded = lx >= 0 && lx <= 1 && legend.orientation !== "h" && (legend.x ?? 0) * plot + widest > plot;
  const shown = out.showlegend === true || (traces || []).length > 1;
  if (names.length && shown && ((legend.y != null && legend.y < 0 && (legend.yref || "paper") === "paper") || (width < NARROW && beside) || crowded)) {
    beside = beside || crowded;
    // under the plot, anchored to the chart's bottom edge, with room for the x axis and the legend
    const horizontal = legend.orientation === "h" || beside;
    const x = beside ? 0 : legend.x ?? 0;
    const height = legendHeight(names, px, (1 - x) * width - 10, horizontal, family);
    let axis = 0;
    for (const key of Object.keys(out)) {
      if (!key.startsWith("xaxis") || !out[key] || typeof out[key] !== "object") continue;
      const [t, z] = titleOf(out[key].title);
      if (t) axis = Math.max(axis, blockHeight(t, z || base) + 8);
    }
    axis += base * LINE + 8;
    low = Math.max(low, Math.round(axis + GAP + height + 4));
    // y in the plot's fractions, set once the margins are known (a legend anchored to the
    // chart's edge with yref "container" made Plotly push the margins past the chart's height)
    Object.assign(legend, { yanchor: "top", x, xanchor: "left", __below: axis + GAP / 2 });
    if (beside) legend.orientation = "h";
    out.legend = legend;
  }
  // without a title, room still for the subplot titles over the top panels (stacked ones included)
  const top = titleHeight
    ? Math.max(top0, Math.round(TITLE_PAD + titleHeight + notesHeight + above + GAP))
    : Math.max(top0, Math.round(notesHeight + above + GAP));
  // y titles and y tick labels last, against the plot's height once the title and the legend
  // took theirs (a y title is never wrapped: see below)
  const innerHeight = out.__stackedPlot || Math.max((height || out.height || 450) - top - low, 50);
  for (const key of Object.keys(out)) {
    const axis = out[key];
    if (!key.startsWith("yaxis") || !axis || typeof axis !== "object") continue;
    const [lo0, hi0] = axis.domain || [0, 1];
    const labels = axis.ticktext;
    if (labels && axis.tickvals && labels.length > 2) {
      out[key] = thinned(axis, ((axis.tickfont || {}).size || base) * LINE + 4, (hi0 - lo0) * innerHeight);
    }
    const [t, z] = titleOf(axis.title);
    if (!t) continue;
    const [lo, hi] = axis.domain || [0, 1];
    // a y title longer than its plot: smaller type, on one line (Plotly places a turned text of
    // several lines at y = -Infinity)
    const room = 0.85 * (hi - lo) * innerHeight; // Plotly may push the margins
    const long = Math.max(...lines(t).map((line) => textWidth(line, z || base, family)));
    if (long > room) {
      const title = withTitle(axis.title, t);
      title.font = Object.assign({}, title.font || {}, { size: Math.max(9, ((z || base) * room) / long) });
      out[key] = Object.assign({}, out[key], { title });
    }
  }
  if (top !== top0 || low !== bottom0) out.margin = Object.assign(margin, { t: top, b: low });
  if (out.__stackedPlot) {
    // the stacked panels' plot, its height in pixels, between the margins as they now are
    out.height = top + low + out.__stackedPlot;
    delete out.__stackedPlot;
  }
  // the plot keeps at least 120 px: the chart grows rather than Plotly failing on a plot of none
  if (height && height < top + low + 120) out.height = Math.max(out.height || 0, top + low + 120);
  if (out.legend && out.legend.__below !== undefined) {
    const { __below, ...legendOut } = out.legend;
    const plotH = Math.max((out.height || height || 450) - top - low, 50);
    out.legend = Object.assign(legendOut, { y: -__below / plotH });
  }
  // Tick labels are let run past the chart's edge: Plotly's default for numeric axes ("hide past
  // div") measures every tick label's box after every draw to hide those that would, a forced
  // layout each (a quarter of a drag's time on ADePT's ε chart); the texts are fitted above, and
  // the overlap test fails a text that leaves the chart.
  for (const key of Object.keys(out)) {
    if (/^[xy]axis\d*$/.test(key) && out[key] && out[key].ticklabeloverflow === undefined) {
      out[key] = Object.assign({}, out[key], { ticklabeloverflow: "allow" });
    }
  }
  return out;
}

// the figure's layout fitted to a width, made once per (figure, width): a drag redraws the same
// frames at the same width
function fitted(figure, width, height) {
  figure.__fit = figure.__fit || new Map();
  const key = `${width}x${height}`;
  if (!figure.__fit.has(key)) figure.__fit.set(key, interned(fitLayout(figure.layout, width, figure.data, height)));
  return Object.assign({}, figure.__fit.get(key));
}

// The layout's flat arrays (tick values and texts, minor ticks) as one shared instance per
// content: Plotly takes a layout array that is a new object as changed data and draws the whole
// chart again, so two frames whose axes read the same (each fitted apart, or parsed apart) made
// a drag's every step a full draw (ADePT's fixes chart: 80 ms for a layout that had not changed).
const INTERNED = new Map();
function interned(value, depth = 0) {
  if (Array.isArray(value)) {
    if (value.length > 5000 || value.some((v) => v !== null && typeof v === "object")) {
      if (depth < 4) value.forEach((v) => interned(v, depth + 1)); // annotations, shapes: their own arrays
      return value;
    }
    const key = JSON.stringify(value);
    if (!INTERNED.has(key)) {
      if (INTERNED.size > 20000) INTERNED.clear();
      INTERNED.set(key, value);
    }
    return INTERNED.get(key);
  }
  if (value && typeof value === "object" && !ArrayBuffer.isView(value) && depth < 4) {
    for (const k of Object.keys(value)) if (k !== "template") value[k] = interned(value[k], depth + 1);
  }
  return value;
}

// A heatmap on a phone. Its numbers stay in the cells where a cell is wide enough for two digits
// at 11 px (26 px), else they go (they ran over each other; hovering still gives each value).
// Where the panels are stacked one per row (stacked), its colour bar lies under the last panel,
// across the width, rather than beside them all, where it took a quarter of the panels' width
// and ran the height of all six of Partial's pixel maps.
const CELL_FOR_NUMBERS = 26;
function heatmapOnPhone(t, layout, width, stacks) {
  const patch = {};
  const columns = (z) => {
    if (Array.isArray(z)) return Math.max(1, ...z.map((row) => (row && row.length) || 1));
    const shape = z && z.shape !== undefined ? String(z.shape).split(",") : [];
    return shape.length > 1 ? +shape[shape.length - 1] || 1 : 1;
  };
  const across = stacks ? 1 : columnsOf(layout);
  const margin = marginOf(layout);
  const cell = (width - margin.l - margin.r) / across / columns(t.z);
  if (t.texttemplate && cell < CELL_FOR_NUMBERS) patch.texttemplate = "";
  if (stacks && t.showscale !== false && t.colorbar) {
    const [text] = titleOf(t.colorbar.title);
    const title = Object.assign({}, typeof t.colorbar.title === "object" ? t.colorbar.title : {}, {
      text: String(text || "").replace(/<br\s*\/?>/i, " "), // its first two lines as one
      side: "top",
    });
    patch.colorbar = Object.assign({}, t.colorbar, {
      orientation: "h", x: 0.5, xanchor: "center", xref: "paper", y: 0, yanchor: "bottom", yref: "container",
      len: 0.9, thickness: 12, title,
    });
  }
  return Object.keys(patch).length ? patch : null;
}

// the figure's traces with legend names longer than the chart's width wrapped (the same array
// when none is)
function fittedData(figure, width) {
  const layout = figure.layout || {};
  const defaults = (layout.template && layout.template.layout) || {};
  const font = Object.assign({}, defaults.font || {}, layout.font || {});
  const px = Math.min(((layout.legend || {}).font || {}).size || font.size || 14, width < NARROW ? 12 : 1e9);
  const room = width - 66;
  let changed = false;
  const stacks = width < NARROW && stackable(layout) !== null;
  const data = (figure.data || []).map((t) => {
    if (width < NARROW && t.type === "heatmap") {
      const patch = heatmapOnPhone(t, layout, width, stacks);
      if (patch) {
        changed = true;
        t = Object.assign({}, t, patch);
      }
    }
    if (!t.name || textWidth(t.name, px, font.family || "sans-serif") <= room) return t;
    changed = true;
    return Object.assign({}, t, { name: wrapText(t.name, px, room, font.family || "sans-serif") });
  });
  return changed ? data : figure.data;
}

// a fitted layout at the element's size, or taller where its texts need it; a legend under the
// plot lowered by what this chart measured it needs at this size (settleLegend)
function sized(layout, box, gd) {
  const out = Object.assign(layout, box, { height: Math.max(box.height, layout.height || 0) });
  const sides = gd && gd.__dpvizSides && gd.__dpvizSides.get(`${box.width}x${box.height}`);
  if (sides) {
    // the widest left and right margins this chart has needed at this size (Plotly widens them for
    // its tick labels): a frame whose labels are narrower keeps them, so the plot stands still
    // during a drag and Plotly does not draw the chart twice (once to find a margin changed)
    const m = marginOf(out);
    out.margin = Object.assign({}, out.margin || {}, { l: Math.max(m.l, sides.l), r: Math.max(m.r, sides.r) });
  }
  const shift = gd && gd.__dpvizShift && gd.__dpvizShift.get(`${box.width}x${box.height}`);
  if (shift && out.legend && out.legend.y < 0) {
    const m = Object.assign({ t: 100, b: 80 }, out.margin || {});
    const plotH = out.height - m.t - m.b;
    const below = -out.legend.y * plotH + shift;
    out.margin = Object.assign({}, out.margin || {}, { b: m.b + shift });
    out.legend = Object.assign({}, out.legend, { y: -below / Math.max(plotH - shift, 50) });
  }
  return out;
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
function keepSides(gd, box, drawn = gd) {
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

// redraw a chart with a figure now, or when it comes into view
function show(gd, figure, tag, now) {
  const state = gd.__dpviz;
  if (gd.__dpvizShown === figure && gd.__dpvizShownState === state) return void dropShot(gd); // already drawn (or on its way)
  gd.__dpvizShownState = state;
  const draw = () => plotly(state.plotly).then((Plotly) => {
    if (gd.__dpviz !== state || gd.__dpvizShown !== figure) return; // a newer figure came meanwhile
    const box = size(gd);
    const data = fittedData(figure, box.width);
    return Plotly.react(gd, data, sized(fitted(figure, box.width, box.height), box, gd), state.config).then(() => {
      if (settleLegend(gd, box)) return Plotly.react(gd, data, sized(fitted(figure, box.width, box.height), box, gd), state.config);
    }).then(() => {
      keepSides(gd, box);
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
  dropShot(gd);
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

// the figure's own layout, before its texts were wrapped to the width (fitLayout): a title's
// lines are the author's, not the window's
function ownLayout(gd) {
  return (gd.__dpvizShown && gd.__dpvizShown.layout) || gd._fullLayout || {};
}

function axisTitle(gd, id) {
  const key = (id || "x").replace(/^([xy])(\d*)$/, (m, a, n) => `${a}axis${n}`);
  const ax = ownLayout(gd)[key] || gd._fullLayout[key];
  const [text] = titleOf(ax && ax.title);
  return plain(text) || (id || "x")[0];
}

function chartTitle(gd) {
  return plain(titleOf(ownLayout(gd).title)[0]) || "Chart";
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

// Drag shots. A frame drawn by Plotly.react costs 10-35 ms (Plotly draws the whole chart again:
// its axes from scratch, the legend, the annotations), and with Streamlit's slider (7-12 ms a
// move) and the page's own style, layout and paint that made three or four 16.7-ms screen
// frames a step: 15-20 distinct pictures in a 1-s drag. So each frame along a slider is drawn
// once ahead, in the browser's idle time, by the same Plotly.react with the same figure, size
// and margins, into a hidden chart; its SVG is kept (a "shot", its clip-path ids made its own).
// While the mouse drags a slider, a chart whose shot of the new position is ready shows that
// shot over its plot (one subtree swapped, no drawing); a position with no shot yet is drawn by
// Plotly as before. When the mouse is let go, Plotly draws the last position in the chart itself
// (hover, zoom and the text description follow it) and the shot is taken away. A key's move on a
// slider is shown from its shot too, and Plotly draws it in the chart itself once the keys and the
// page are quiet (usually the server's answer to the last key does it first). Shots are made
// a moment after the page draws its charts or scrolls one into view, when the pointer goes over a
// slider, and after a drag: for the charts in view, nearest their slider's position first, one
// at a time, in idle time, never during a drag, while the page runs, nor within a second of a key
// press (a shot takes 10-40 ms: the next key must not wait for one).
const SHOT_LIMIT = 600; // shots kept per chart (a chart on a page holds at most 2 sliders' grids)
const SHOT_QUIET = 1000; // ms after a key press with no shot begun
const SHOT_IDLE = 8; // ms of idle time left in a frame for a shot to begin (it takes 10-40 ms)
const SHOT_TRIES = 3; // a frame whose shot failed this often is left to Plotly
const KEY_MOVE = 500; // ms from a key going down on a slider to its move, shown from a shot
const KEY_SETTLE = 600; // ms after the last key shown from a shot until Plotly draws the chart itself
const SHOTS = (window.__dpvizShots = window.__dpvizShots || {
  made: 0, shown: 0, queue: [], busy: false, host: null, seq: 0, tried: new Map(), planned: null, plannedAt: 0,
});

// the hidden chart the shots are drawn in: in the page only while it draws (a page's charts, texts
// and test selectors never meet it), its Plotly state kept in between
function shotHost(box) {
  if (!SHOTS.host) {
    const el = document.createElement("div");
    el.className = "dpviz-shot-host";
    el.setAttribute("aria-hidden", "true");
    el.style.cssText = "position:fixed;left:-40000px;top:0;visibility:hidden;pointer-events:none;overflow:hidden";
    SHOTS.host = el;
  }
  if (!SHOTS.host.isConnected) document.body.appendChild(SHOTS.host);
  SHOTS.host.style.width = `${box.width}px`;
  SHOTS.host.style.height = `${box.height}px`;
  return SHOTS.host;
}

// what a shot depends on besides its frame: the chart's size and the margins and legend shift it
// has learned at that size (sized)
function shotKey(gd, label, index, box = size(gd)) {
  const s = gd.__dpviz.sliders[label];
  const k = `${box.width}x${box.height}`;
  const sides = gd.__dpvizSides && gd.__dpvizSides.get(k);
  const shift = gd.__dpvizShift && gd.__dpvizShift.get(k);
  return `${s.frames}|${index}|${k}|${sides ? `${sides.l},${sides.r}` : ""}|${shift || ""}`;
}

window.__dpvizShotKey = shotKey; // for the browser tests

// the host's SVG as a shot: a copy whose ids (clip paths, gradients) are its own, so that two
// shots on a page never point at each other's clip paths
function takeShot(host) {
  const wrap = document.createElement("div");
  wrap.className = "dpviz-shot";
  wrap.setAttribute("aria-hidden", "true");
  wrap.style.cssText = "position:absolute;left:0;top:0;pointer-events:none";
  for (const svg of host.querySelectorAll(".svg-container > svg.main-svg")) wrap.appendChild(svg.cloneNode(true));
  const tag = `s${++SHOTS.seq}-`;
  const ids = [];
  for (const el of wrap.querySelectorAll("[id]")) {
    ids.push(el.id);
    el.id = tag + el.id;
  }
  if (ids.length) {
    const esc = ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
    const ref = new RegExp(`#(${esc.join("|")})(?=['")\\s]|$)`, "g");
    for (const el of wrap.querySelectorAll("*")) {
      for (const a of el.attributes) {
        if (a.value.includes("#") && (a.value.includes("url(") || a.name.endsWith("href"))) {
          const v = a.value.replace(ref, (_, id) => `#${tag}${id}`);
          if (v !== a.value) a.value = v;
        }
      }
    }
  }
  return wrap;
}

// draw one frame into the host and keep its shot; the margins Plotly gave it become the least
// the chart keeps at this size (keepSides), so the chart, its shots and its last draw agree
async function makeShot(gd, label, index) {
  const state = gd.__dpviz;
  const s = state.sliders[label];
  const doc = FRAMES.get(s.frames);
  if (!doc) return;
  const figure = frameAt(doc, index);
  const box = size(gd);
  const key = shotKey(gd, label, index);
  const Plotly = await plotly(state.plotly);
  const host = shotHost(box);
  const config = Object.assign({}, state.config, { staticPlot: true, displayModeBar: false, responsive: false });
  try {
    await Plotly.react(host, fittedData(figure, box.width), sized(fitted(figure, box.width, box.height), box, gd), config);
    if (gd.__dpviz !== state) return;
    keepSides(gd, box, host);
    if (shotKey(gd, label, index) !== key) return; // the margins grew: this frame again, later
    gd.__dpvizShots = gd.__dpvizShots || new Map();
    if (gd.__dpvizShots.size >= SHOT_LIMIT) gd.__dpvizShots.clear();
    gd.__dpvizShots.set(key, { node: takeShot(host), figure });
    SHOTS.tried.delete(key);
    SHOTS.made++;
  } finally {
    host.remove();
  }
}

// the shots a chart lacks along a slider, nearest the slider's position first
function plannedShots(gd, label) {
  const s = gd.__dpviz.sliders[label];
  const doc = s && FRAMES.get(s.frames);
  if (!doc || !current(gd, label) || document.fullscreenElement === gd) return [];
  const at = AT.has(label) ? AT.get(label) : s.options.indexOf(s.at);
  const box = size(gd);
  const wanted = [];
  const n = s.options.length;
  for (let d = 0; d < n; d++) {
    for (const i of d ? [at + d, at - d] : [at]) {
      if (i < 0 || i >= n || !doc.index.has(s.options[i])) continue;
      const key = shotKey(gd, label, i, box);
      if ((SHOTS.tried.get(key) || 0) >= SHOT_TRIES) continue; // this one fails: drawn by Plotly
      if (!(gd.__dpvizShots && gd.__dpvizShots.has(key))) wanted.push([gd, label, i, d]);
    }
  }
  return wanted;
}

// the shots of the charts in view along one slider (or all), nearest their slider's position first
function planShots(label, again = false) {
  const now = performance.now();
  if (!again && SHOTS.planned === (label || "") && now - SHOTS.plannedAt < 250) return; // (the pointer's moves over a slider)
  SHOTS.planned = label || "";
  SHOTS.plannedAt = now;
  const jobs = [];
  for (const gd of CHARTS) {
    if (!gd.isConnected || !gd._fullLayout || !inWindow(gd)) continue;
    for (const l of label ? [label] : Object.keys(gd.__dpviz.sliders)) jobs.push(...plannedShots(gd, l));
  }
  SHOTS.queue = jobs.sort((a, b) => a[3] - b[3]);
  if (jobs.length) nextShot();
}

// shots planned a while after the page last drew or scrolled a chart into view
function planSoon(ms = 1500) {
  if (SHOTS.soon) return; // one is coming (a page drawing chart after chart does not put it off)
  SHOTS.soon = setTimeout(() => {
    SHOTS.soon = null;
    planShots();
  }, ms);
}

// whether the page runs (Streamlit's status widget shows): its answer may redraw charts
function pageRuns() {
  return !!document.querySelector('[data-testid="stStatusWidget"]');
}

function nextShot() {
  if (SHOTS.busy || !SHOTS.queue.length) return;
  SHOTS.busy = true;
  const run = (deadline) => {
    // not while the page runs (its answer redraws charts) nor just after a key press
    const quiet = pageRuns() ? 500 : (SHOTS.quiet || 0) - performance.now();
    if (quiet > 0) return void setTimeout(() => requestIdleCallback(run, { timeout: 1000 }), quiet);
    if (SHOTS.dragging || (deadline && deadline.timeRemaining() < SHOT_IDLE && !deadline.didTimeout)) {
      return void requestIdleCallback(run, { timeout: 1000 });
    }
    if (!SHOTS.queue.length) return void (SHOTS.busy = false); // planned again meanwhile: nothing left to make
    const [gd, label, index] = SHOTS.queue.shift();
    const done = () => {
      SHOTS.busy = false;
      if (SHOTS.queue.length) nextShot();
      else planShots(undefined, true); // what is in view now, and shots whose chart's margins grew meanwhile
    };
    if (!gd.isConnected || !gd.__dpviz.sliders[label]) return void done();
    const key = shotKey(gd, label, index);
    if (gd.__dpvizShots && gd.__dpvizShots.has(key)) return void done();
    if (SHOTS.tried.size > 20000) SHOTS.tried.clear();
    SHOTS.tried.set(key, (SHOTS.tried.get(key) || 0) + 1); // until it is made
    makeShot(gd, label, index).then(done, done);
  };
  requestIdleCallback(run, { timeout: 1000 });
}

// a chart during a drag: the shot of its new position over its plot
function showShot(gd, shot, tag) {
  const box = gd.querySelector(".svg-container");
  if (!box) return false;
  if (gd.__dpvizShot !== shot) {
    if (gd.__dpvizShot) gd.__dpvizShot.node.remove();
    const last = box.querySelectorAll(":scope > svg.main-svg");
    box.insertBefore(shot.node, last.length ? last[last.length - 1].nextSibling : box.firstChild);
    gd.__dpvizShot = shot;
    SHOTS.shown++;
  }
  gd.__dpvizDrawn = { tag, at: performance.now() };
  gd.dispatchEvent(new CustomEvent("dpviz-drawn", { detail: tag }));
  return true;
}

// the shot taken away once Plotly has drawn the chart itself where the shot showed
function dropShot(gd) {
  const shot = gd.__dpvizShot;
  if (!shot) return;
  const gone = () => {
    if (gd.__dpvizShot === shot) {
      shot.node.remove();
      gd.__dpvizShot = null;
    }
  };
  if (gd.__dpvizPending || !gd.__dpvizLast) gone();
  else Promise.resolve(gd.__dpvizLast).then(gone, gone);
}

// the mouse let go: every chart showing a shot drawn by Plotly at its position
function endDrag() {
  if (!SHOTS.dragging) return;
  SHOTS.dragging = false;
  if (MOVED.size) follow();
  drawShown();
  planSoon(300);
}

// every chart showing a shot drawn by Plotly at the shot's position (show drops the shot once drawn)
function drawShown() {
  for (const gd of CHARTS) {
    const shot = gd.__dpvizShot;
    if (shot) show(gd, shot.figure, gd.__dpvizDrawn ? gd.__dpvizDrawn.tag : "shot", true);
  }
}

function watchDrags() {
  if (window.__dpvizDragWatch) return;
  window.__dpvizDragWatch = true;
  const slider = (e) => e.target && e.target.closest && e.target.closest('[data-testid="stSlider"]');
  const labelOf = (el) => {
    const input = el && el.querySelector('input[type="range"][aria-label]');
    return input ? input.getAttribute("aria-label") : null;
  };
  window.addEventListener("pointerdown", (e) => { if (slider(e)) SHOTS.dragging = true; }, true);
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

// every slider move: the latest position per label, drawn at once for a key when nothing was
// drawn in the last animation frame, else at the next one (a drag: the moves in between are skipped)
const MOVED = new Map();
function follow() {
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
      if (shot && shot.figure === figure && showShot(gd, shot, `${label}=${index}`)) {
        if (!SHOTS.dragging) settleKeys();
      } else show(gd, figure, `${label}=${index}`, seen);
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
  watchDrags();
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
    // (never while the page runs: a rerun asked for then would interrupt that run; nor during a
    // drag, which asks the server nothing until it is let go)
    const ask = () => {
      const busy = pageRuns() || SHOTS.dragging;
      if (busy) parentElement.__dpvizAsk = setTimeout(ask, 2000);
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
  if (data.figure) decodedData(data.figure.data);
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
      if (!gd._fullLayout || !window.Plotly) return;
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
