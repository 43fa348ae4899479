// A chart's texts fitted to the width it is drawn at (the rules of dpviz/text_fit.py, which fits
// an exported image): titles, subplot titles and x-axis titles longer than their room wrapped
// between words (a line that is one <sup> tag inside the tag, at 0.7 of the size), the top and
// bottom margins grown by the lines added. Plotly never wraps; a long title is cut at the edge.

// a text's width in pixels: the page's canvas measures it (useMeasure: another rule, for Node's tests)
let MEASURE = null;
export function useMeasure(measure) {
  MEASURE = measure;
}
function canvasMeasure() {
  const context = document.createElement("canvas").getContext("2d");
  return (text, px, family) => {
    context.font = `${px}px ${family}`;
    return context.measureText(text).width;
  };
}
const SMALL = { sup: 0.7, sub: 0.7, small: 0.8 };
const LINE = 1.3;
const TITLE_PAD = 8;
const GAP = 12;
export function textWidth(text, px, family) {
  MEASURE = MEASURE || canvasMeasure();
  return MEASURE(String(text).replace(/<[^>]+>/g, ""), px, family);
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
export function wrapText(text, px, room, family) {
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
export function titleOf(obj) {
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
// a legend beside the plot whose widest entry takes more of the chart's width moves under it, at
// any width (dpviz/text_fit.py BESIDE_SHARE)
const BESIDE_SHARE = 0.4;
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
// what a legend row takes beyond its text's line, as Plotly draws a line-and-marker entry (31 px a
// row at 14-px type; dpviz/text_fit.py ROW_PAD)
const ROW_PAD = 13;
function legendHeight(names, px, room, horizontal, family) {
  if (!names.length) return 0;
  let rows = 1, used = 0;
  for (const name of names) {
    const w = textWidth(name, px, family) + 60;
    if (horizontal && used && used + w > room) { rows += 1; used = 0; }
    else if (!horizontal && used) rows += 1;
    used += w;
  }
  return rows * (px * LINE + ROW_PAD) + 10;
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

export function fitLayout(layout, width, traces, height) {
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
  if (names.length && shown && ((legend.y != null && legend.y < 0 && (legend.yref || "paper") === "paper") || (beside && (width < NARROW || widest > BESIDE_SHARE * width)) || crowded)) {
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
    // the room the x axis and the legend's rows need at this width, no more: a figure may have sized
    // its margin for a narrow column (the frontiers: a row an entry), an empty band under the
    // legend of a wide chart; the element keeps its height, so the plot takes what is left
    low = Math.round(axis + GAP + height + 4);
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
export function fitted(figure, width, height) {
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
export function fittedData(figure, width) {
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
export function sized(layout, box, gd) {
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
