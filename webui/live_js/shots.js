import { CHARTS, FRAMES } from "./state.js";
import { fitted, fittedData, sized } from "./text_fit.js";
import { AT, frameOf, setOf } from "./positions.js";
import { MOVED, flushDeferred, follow } from "./sliders.js";
import { inWindow, keepSides, plotly, sayDrawn, show, size } from "./chart.js";
import { NEAR_SUFFIX } from "./fetch_frames.js";

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
export const SHOT_QUIET = 1000; // ms after a key press with no shot begun
const SHOT_IDLE = 8; // ms of idle time left in a frame for a shot to begin (it takes 10-40 ms)
const SHOT_TRIES = 3; // a frame whose shot failed this often is left to Plotly
export const KEY_MOVE = 500; // ms from a key going down on a slider to its move, shown from a shot
export const KEY_SETTLE = 600; // ms after the last key shown from a shot until Plotly draws the chart itself
export const SHOTS = (window.__dpvizShots = window.__dpvizShots || {
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
// has learned at that size (sized). A set's nearest part and the whole set hold the same frames
// at its positions (the whole is put together from the same figures, webui/frames_pool.py), so a
// shot made from the nearest part is kept when the whole set comes: keyed by the set's own key.
// (Before, every shot made in the second or two after a step was made again once the whole set
// came, and a drag right after the step met none. A shot is shown by its key (sliders.js follow):
// the whole set's frame is another object than the nearest part's, with the same figure.)
export function shotKey(gd, label, index, box = size(gd)) {
  const s = gd.__dpviz.sliders[label];
  const read = setOf(gd, label) || s.frames; // (a set one key step of another slider away, fetched at that step)
  const set = read.endsWith(NEAR_SUFFIX) ? read.slice(0, -NEAR_SUFFIX.length) : read;
  return `${set}|${s.options[index]}|${shotLook(gd, box)}`; // (by value: a link's value shifts the indexes)
}

// the part of a shot's key that its look depends on: the chart's size, margins and legend shift
function shotLook(gd, box) {
  const k = `${box.width}x${box.height}`;
  const sides = gd.__dpvizSides && gd.__dpvizSides.get(k);
  const shift = gd.__dpvizShift && gd.__dpvizShift.get(k);
  return `${k}|${sides ? `${sides.l},${sides.r}` : ""}|${shift || ""}`;
}

// a chart's shots at a size made with margins it has since outgrown: never shown again, dropped
// (they stayed until the chart held SHOT_LIMIT of them)
export function dropOutgrown(gd, box) {
  if (!gd.__dpvizShots) return;
  const look = shotLook(gd, box);
  const k = `${box.width}x${box.height}`;
  for (const key of [...gd.__dpvizShots.keys()]) {
    const parts = key.split("|");
    if (parts[parts.length - 3] === k && !key.endsWith(`|${look}`)) gd.__dpvizShots.delete(key);
  }
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
  // its elements carry no class (the layers, svg.main-svg, keep theirs): a shot lies inside the
  // chart, and Plotly's drawing of the chart selects by class from the chart down (the scatter
  // traces' style: "g.trace.scatter", then each one's data); a shot's copies, with no data, threw
  // "Cannot read properties of undefined" from Plotly's drawing when it drew the chart under a
  // shot (a key's, until it is taken away). What a class gave the picture is kept as an attribute
  // (Plotly's ".crisp": shape-rendering), and the copied drag layer no longer takes the pointer
  for (const el of wrap.querySelectorAll("svg.main-svg *[class]")) {
    if (el.classList.contains("crisp") && !el.hasAttribute("shape-rendering")) el.setAttribute("shape-rendering", "crispEdges");
    el.removeAttribute("class");
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
export async function makeShot(gd, label, index) {
  const state = gd.__dpviz;
  const s = state.sliders[label];
  const figure = frameOf(FRAMES.get(setOf(gd, label)), s.options[index]); // (by value, not frameAt(doc, index): a
  // nearest part's frame at the option's index was another position's, or none, and its shot never shown)
  if (!figure) return;
  const box = size(gd);
  let key = shotKey(gd, label, index);
  const look = shotLook(gd, box);
  const Plotly = await plotly(state.plotly);
  const host = shotHost(box);
  const config = Object.assign({}, state.config, { staticPlot: true, displayModeBar: false, responsive: false });
  try {
    await Plotly.react(host, fittedData(figure, box.width), sized(fitted(figure, box.width, box.height), box, gd), config);
    if (gd.__dpviz !== state) return void SHOTS.tried.delete(key); // the page drew the chart anew meanwhile: not a failure
    keepSides(gd, box, host);
    const now = shotKey(gd, label, index);
    if (now !== key) { // the margins grew
      dropOutgrown(gd, box);
      SHOTS.replan = true; // (the shots dropped, those a key reaches among them, planned again in their order)
      if (!grewHere(gd, box, host, key, look, now)) return; // this frame again, later
      key = now;
    }
    gd.__dpvizShots = gd.__dpvizShots || new Map();
    if (gd.__dpvizShots.size >= SHOT_LIMIT) gd.__dpvizShots.clear();
    gd.__dpvizShots.set(key, { node: takeShot(host), figure });
    SHOTS.tried.delete(key);
    SHOTS.made++;
  } finally {
    host.remove();
  }
}

// whether a shot whose drawing made the chart's margins grow shows the chart as it is now: its
// key changed in the margins alone (the same set, position, size and legend shift), and Plotly drew
// it with the margins the chart keeps from now on (it widened them for this frame's tick labels;
// keepSides took them, whole pixels). Drawn again at those margins it is the same picture, so it is
// kept under its new key rather than made again (ADePT's ε chart drew 11 shots for its sliders'
// four ends on a step of n, each end widening the margins in turn: 0.1 s each of the reader's pause)
export function grewHere(gd, box, host, key, look, now) {
  const got = host._fullLayout && host._fullLayout._size;
  const sides = gd.__dpvizSides && gd.__dpvizSides.get(`${box.width}x${box.height}`);
  const shift = (l) => l.slice(l.lastIndexOf("|"));
  const after = shotLook(gd, box);
  return Boolean(got && sides) && got.l === sides.l && got.r === sides.r && shift(look) === shift(after)
    && now === key.slice(0, key.length - look.length) + after; // (key ends with look: makeShot made both)
}

// The order a slider's shots are made in: the grid's two ends, the positions a key reaches next
// (within NEAR_SHOTS of the slider's), then the rest coarse to fine (every 16th position from
// the slider's, then every 8th, 4th, 2nd, then all), each pass nearest first. A drag crosses the
// whole grid: with a third of its shots made, it meets one every third position, not only the
// ones near where it began (ADePT's ε, 97 positions: a 1-s drag right after a step of n met shots
// of 3 of them). The ends come first because a chart's margins follow its widest tick labels,
// mostly at an end: when a shot's margins grow, the chart's shots made before are made again
// (ADePT's ε chart's left margin grew five times along ε, nearest first, and its shots with it).
export const NEAR_SHOTS = 3;
const STRIDES = [16, 8, 4, 2, 1];
export function shotOrder(at, n) {
  const rank = new Array(n);
  const d = (i) => Math.abs(i - at);
  for (let i = 0; i < n; i++) {
    if (i === 0 || i === n - 1) rank[i] = [0, d(i)];
    else if (d(i) <= NEAR_SHOTS) rank[i] = [1, d(i)];
    else rank[i] = [2 + STRIDES.findIndex((s) => d(i) % s === 0), d(i)];
  }
  return [...rank.keys()].sort((a, b) => rank[a][0] - rank[b][0] || rank[a][1] - rank[b][1] || a - b)
    .map((i, place) => [i, place, rank[i][0] < 2]);
}

// Across the sliders of the charts in view, shots go by their place in each slider's shotOrder, a
// chart half in view at half the pace. The slider the reader moved last keeps its ends and the
// positions a key reaches in that order, and the rest of it comes after the other sliders': a
// slider's set changes when another slider moves, so the one just moved usually holds its shots
// from before the move, and the slider that lost them is the one the reader goes to next (ADePT:
// a step of n, then a drag of ε, met 13 shots of ε's 97 while the pause went to n's and ε's alike).
// Its ends come with the others' ends (a chart's margins follow them), its near positions after the
// other sliders' first LAST_MOVED_NEAR places: their ends, near positions and every 16th position.
// (ADePT's ε chart, a step of n and a 3-s pause: 9 of its first 28 shots went to n's ends and near
// positions, which a key of n again finds drawn by Plotly in 40-90 ms, while a drag of ε met 19.)
const LAST_MOVED_LATER = 1e6;
export const LAST_MOVED_NEAR = 12;

// the shots a chart lacks along a slider, in shotOrder
function plannedShots(gd, label) {
  const s = gd.__dpviz.sliders[label];
  const doc = s && FRAMES.get(setOf(gd, label));
  if (!doc || document.fullscreenElement === gd) return [];
  const at = AT.has(label) ? AT.get(label) : s.options.indexOf(s.at);
  const box = size(gd);
  const wanted = [];
  const moved = label === SHOTS.lastMoved && Object.keys(gd.__dpviz.sliders).length > 1;
  const n = s.options.length;
  for (const [i, place, first] of shotOrder(Math.max(0, at), n)) {
    if (!doc.index.has(s.options[i])) continue;
    const key = shotKey(gd, label, i, box);
    if ((SHOTS.tried.get(key) || 0) >= SHOT_TRIES) continue; // this one fails: drawn by Plotly
    const end = i === 0 || i === n - 1;
    const after = !moved || end ? 0 : first ? LAST_MOVED_NEAR : LAST_MOVED_LATER;
    if (!(gd.__dpvizShots && gd.__dpvizShots.has(key))) wanted.push([gd, label, i, place + after]);
  }
  return wanted;
}

// the shots of the charts in view along one slider (or all), each slider's in shotOrder
export function planShots(label, again = false) {
  const now = performance.now();
  if (!again && SHOTS.planned === (label || "") && now - SHOTS.plannedAt < 250) return; // (the pointer's moves over a slider)
  SHOTS.planned = label || "";
  SHOTS.plannedAt = now;
  watchScroll();
  const jobs = [];
  for (const gd of CHARTS) {
    if (!gd.isConnected || !gd._fullLayout || !inWindow(gd)) continue;
    const share = Math.max(seenShare(gd), 0.25); // a chart half in view: its shots at half the pace
    for (const l of label ? [label] : Object.keys(gd.__dpviz.sliders)) {
      for (const job of plannedShots(gd, l)) jobs.push([...job.slice(0, 3), job[3] / share]);
    }
  }
  SHOTS.queue = jobs.sort((a, b) => a[3] - b[3]);
  if (jobs.length) nextShot();
}

// how much of a chart is in the window: the share of its height (or of the window's, for a chart
// taller than it) that shows
export function seenShare(gd) {
  const r = gd.getBoundingClientRect();
  const shown = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
  return Math.max(0, Math.min(1, shown / Math.max(1, Math.min(r.height, window.innerHeight))));
}

// a scroll plans the shots again soon (the charts in view changed; a chart already within the
// watchers' 200 px of the window when the reader scrolled to it told no one: ADePT's shots along n
// of the chart above went on for 2 s after a reader scrolled to the ε chart)
function watchScroll() {
  if (window.__dpvizShotScroll) return;
  window.__dpvizShotScroll = true;
  window.addEventListener("scroll", () => planSoon(300), { passive: true, capture: true });
}

// shots planned a while after the page last drew or scrolled a chart into view: `ms` from now at
// the latest (a plan already coming sooner stands: a page drawing chart after chart does not put it
// off; one coming later is brought forward)
export function planSoon(ms = 1500) {
  const at = performance.now() + ms;
  if (SHOTS.soon && SHOTS.soonAt <= at) return;
  clearTimeout(SHOTS.soon);
  SHOTS.soonAt = at;
  SHOTS.soon = setTimeout(() => {
    SHOTS.soon = null;
    planShots();
  }, ms);
}

// frames that came after the reader moved a slider (a key or a drag): their shots planned at once
// (the page's first drawing is over, and the reader is at it), not 1.5 s on. After a key press of
// ADePT's n, the frames along ε at the new n came 1.7-3 s after it, and a plan made 1.5 s after the
// page's redraw was still coming: the tab made shots along n, which the reader had just left,
// until 4.4 s, and the 3-s pause before a drag of ε ended with none along ε
export const FRESH_FRAMES_SHOTS = 200;
export function planForFrames() {
  planSoon(SHOTS.keyAt || SHOTS.dragged ? FRESH_FRAMES_SHOTS : undefined);
}

// whether the page runs (its answer may redraw charts), as Streamlit's app element carries the
// run's state (data-test-script-state). Its status widget is no sign: with the toolbar "minimal"
// (.streamlit/config.toml) the header never shows it. The asks for frames not computed yet
// (chart.js) and a key's settling draw (sliders.js) wait for a run to end. The shot maker and the
// fetches of sets one step ahead (fetch_frames.js) do not: they never did in fact (this read the
// status widget until the thirty-second session), and when they waited, benchmarks/bench_after_step.py
// showed no shot made in the 3 s after Metric DP's page opened (its first run went on), 0 of 65
// against 65 of 65, and the sets one step ahead held 0.3-0.6 s after a key step against 0.1-0.3 s
const RUNS = new Set(["running", "rerunRequested", "stopRequested"]);
export function pageRuns() {
  return RUNS.has(document.querySelector('[data-testid="stApp"]')?.dataset?.testScriptState);
}

function nextShot() {
  if (SHOTS.busy || !SHOTS.queue.length) return;
  SHOTS.busy = true;
  const run = (deadline) => {
    // not just after a key press (the page's run goes on: pageRuns above)
    const quiet = (SHOTS.quiet || 0) - performance.now();
    if (quiet > 0) return void setTimeout(() => requestIdleCallback(run, { timeout: 1000 }), quiet);
    if (SHOTS.dragging || (deadline && deadline.timeRemaining() < SHOT_IDLE && !deadline.didTimeout)) {
      return void requestIdleCallback(run, { timeout: 1000 });
    }
    if (!SHOTS.queue.length) return void (SHOTS.busy = false); // planned again meanwhile: nothing left to make
    const [gd, label, index] = SHOTS.queue.shift();
    const done = () => {
      SHOTS.busy = false;
      if (SHOTS.replan && SHOTS.queue.length) {
        SHOTS.replan = false;
        planShots(SHOTS.planned || undefined, true); // the same plan, the dropped shots back in their places
      } else if (SHOTS.queue.length) nextShot();
      else {
        SHOTS.replan = false;
        planShots(undefined, true); // what is in view now, and shots whose chart's margins grew meanwhile
      }
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
export function showShot(gd, shot, tag) {
  const box = gd.querySelector(".svg-container");
  if (!box) return false;
  if (gd.__dpvizShot !== shot) {
    if (gd.__dpvizShot) gd.__dpvizShot.node.remove();
    const last = box.querySelectorAll(":scope > svg.main-svg");
    box.insertBefore(shot.node, last.length ? last[last.length - 1].nextSibling : box.firstChild);
    gd.__dpvizShot = shot;
    SHOTS.shown++;
  }
  gd.__dpvizShotOrder = nextOrder(); // (a later show() of another figure makes this shot stale)
  gd.__dpvizShotTag = tag;
  sayDrawn(gd, tag, gd.__dpviz);
  return true;
}

// the shot taken away once Plotly has drawn the chart itself where the shot showed
export function dropShot(gd) {
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
export function endDrag() {
  if (!SHOTS.dragging) return;
  SHOTS.dragging = false;
  SHOTS.dragged = true;
  if (MOVED.size) follow();
  flushDeferred();
  drawShown();
  planSoon(300);
}

// the order of shots shown and of figures given to Plotly, per chart
function nextOrder() {
  window.__dpvizOrder = (window.__dpvizOrder || 0) + 1;
  return window.__dpvizOrder;
}

// a figure given to Plotly (chart.js's show): a shot shown before it is no longer the chart's
export function noteShown(gd) {
  gd.__dpvizShowOrder = nextOrder();
}

// whether the chart's shot is what it shows now: shown after the last figure given to Plotly (a
// server's answer drawn while a key's shot waited to be drawn by Plotly supersedes the shot)
export function shotCurrent(gd) {
  return Boolean(gd.__dpvizShot) && (gd.__dpvizShotOrder || 0) > (gd.__dpvizShowOrder || 0);
}

// every chart showing a shot drawn by Plotly at the shot's position, with the shot's own tag (show
// drops the shot once drawn); a shot a later figure superseded is not drawn again over it
export function drawShown() {
  for (const gd of CHARTS) {
    const shot = gd.__dpvizShot;
    if (shot && shotCurrent(gd)) show(gd, shot.figure, gd.__dpvizShotTag || "shot", true);
  }
}
