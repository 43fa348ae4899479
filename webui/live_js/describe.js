import { titleOf } from "./text_fit.js";

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

export function fmt(v) {
  if (typeof v === "number" && Math.abs(v) < 1e-12) v = 0; // rounding noise, not a value
  return typeof v === "number" ? (Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : +v.toPrecision(4)).toString() : String(v);
}

export function trend(y) {
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
export function describeSoon(gd) {
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

export function describeBox(gd, parent) {
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
