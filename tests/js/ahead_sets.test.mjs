// A set one key step of another slider away (webui/live_frames.py ahead_for_browser): the server
// names, beside each slider of a chart that follows two, the sets of the other slider's settings one
// key step away, with their files. At such a step the tab fetches the file at once
// (sliders.js fetchStepped), and the first slider's moves are drawn from it (positions.js setOf,
// figureAt) before the page's run at the new setting answers; at any other setting (two steps, or
// a value the server did not name) nothing is drawn from frames, as before.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";

globalThis.dispatchEvent = () => true;
globalThis.document = { hidden: false, baseURI: "http://server/", fullscreenElement: null, querySelectorAll: () => [], querySelector: () => null };
globalThis.innerWidth = 1280;
globalThis.innerHeight = 800;
window.requestAnimationFrame = (f) => setTimeout(f, 0);
window.cancelAnimationFrame = (id) => clearTimeout(id);
const { CHARTS, FRAMES } = await import("../../webui/live_js/state.js");
const { SHOTS } = await import("../../webui/live_js/shots.js");
const { AT, figureAt, setOf } = await import("../../webui/live_js/positions.js");
const { fetchStepped } = await import("../../webui/live_js/sliders.js");
const { AHEAD_WAIT, planAheadIdle } = await import("../../webui/live_js/fetch_frames.js");
Object.assign(AHEAD_WAIT, { first: 1, next: 1, again: 5, missing: 5 });
SHOTS.soon = 1; // no shots planned here (they draw with Plotly)

const EPS = "ε";
const LAM = "λ";
const EPS_OPTIONS = [0.5, 1, 2, 4];
const LAM_OPTIONS = [10, 20, 40];
// a set along λ at ε = eps: each figure's one trace named by its setting
function setAlongLambda(eps) {
  const base = { data: [{ type: "scatter", name: `ε=${eps} λ=${LAM_OPTIONS[0]}`, x: [1], y: [1] }], layout: {} };
  return {
    grid: LAM_OPTIONS,
    base,
    patches: LAM_OPTIONS.map((l) => ({ traces: { 0: { name: `ε=${eps} λ=${l}` } } })),
  };
}
const packed = (doc) => new Uint8Array(deflateSync(Buffer.from(JSON.stringify(doc))));
function chart(idle = false) {
  const gd = {
    isConnected: true,
    _fullLayout: {}, // (drawn)
    getBoundingClientRect: () => ({ top: 0, bottom: 400, left: 0, right: 600, width: 600, height: 400 }),
    __dpviz: {
      sliders: {
        [EPS]: { frames: "eps-at-lam-20", options: EPS_OPTIONS, at: 1 },
        [LAM]: {
          frames: "lam-at-eps-1",
          options: LAM_OPTIONS,
          at: 20,
          // the sets along λ one key step of ε away, both sides (the server's ahead_for_browser)
          ahead: { [EPS]: [[0.5, "lam-at-eps-0.5", "app/static/frames/a.bin"], [2, "lam-at-eps-2", "app/static/frames/b.bin"]] },
          aheadIdle: idle, // (a local server: fetched before any step)
        },
      },
    },
  };
  CHARTS.clear();
  CHARTS.add(gd);
  return gd;
}
// the tab's waiting sets forgotten (a file asked for again every 150 ms would keep Node running)
function forgetWaiting() {
  const fetching = window.__dpvizFetching;
  fetching.sets.clear();
  clearTimeout(fetching.timer);
  fetching.timer = null;
}
// a fresh tab (the chart, no slider moved, no frames held) before a server whose file at `url` holds
// the λ set at ε = serve(url), or is not there (null: a 404); the addresses the tab asked for, in `asked`
function begin(serve, idle = false) {
  const gd = chart(idle);
  AT.clear();
  FRAMES.clear();
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(String(url));
    const eps = serve(String(url));
    if (eps === null) return { ok: false, status: 404 };
    return { ok: true, arrayBuffer: async () => packed(setAlongLambda(eps)).buffer };
  };
  return { gd, asked };
}
const fileOf = (url) => url.split("/").pop();
function end() {
  AT.clear();
  forgetWaiting();
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
async function held(key) {
  for (let i = 0; i < 100 && !FRAMES.get(key); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return FRAMES.get(key);
}

test("the set read along a slider follows the other slider: its own, the one a key step away, else none", () => {
  const gd = chart();
  AT.clear();
  assert.equal(setOf(gd, LAM), "lam-at-eps-1"); // nothing moved
  AT.set(EPS, 2); // ε = 2: one step right
  assert.equal(setOf(gd, LAM), "lam-at-eps-2");
  AT.set(EPS, 0); // ε = 0.5: one step left
  assert.equal(setOf(gd, LAM), "lam-at-eps-0.5");
  AT.set(EPS, 3); // ε = 4: two steps, no set named
  assert.equal(setOf(gd, LAM), null);
  AT.set(EPS, 1); // back where the server drew it
  assert.equal(setOf(gd, LAM), "lam-at-eps-1");
  AT.set(LAM, 2); // λ moved: ε's own set no longer holds, and none was named for ε
  assert.equal(setOf(gd, EPS), null);
  end();
});

test("at a key step the set is fetched at once and the other slider's moves are drawn from it", async () => {
  const { gd, asked } = begin((url) => (url.endsWith("/b.bin") ? 2 : null));
  AT.set(EPS, 2); // the reader steps ε to 2
  assert.equal(figureAt(gd, LAM, 2), null); // not held yet: nothing drawn from frames
  fetchStepped(EPS);
  assert.ok(await held("lam-at-eps-2"));
  assert.deepEqual(asked, ["http://server/app/static/frames/b.bin"]); // at once, only the step's own set
  assert.equal(figureAt(gd, LAM, 2).data[0].name, "ε=2 λ=40"); // λ moved: drawn at the new ε
  assert.equal(figureAt(gd, LAM, 1).data[0].name, "ε=2 λ=20");
  fetchStepped(EPS); // held: not asked again
  await settle();
  assert.equal(asked.length, 1);
  AT.set(EPS, 3); // a second step: no set named there, the chart waits for the server as before
  fetchStepped(EPS);
  await settle();
  assert.equal(asked.length, 1);
  assert.equal(figureAt(gd, LAM, 2), null);
  end();
});

test("a drag fetches no set ahead: only a key's step does", async () => {
  const { asked } = begin(() => null);
  SHOTS.dragging = true;
  AT.set(EPS, 2);
  fetchStepped(EPS);
  await settle();
  assert.deepEqual(asked, []);
  SHOTS.dragging = false;
  fetchStepped(EPS);
  await settle();
  assert.equal(asked.length, 1);
  end();
});

test("a set one step away that is not there yet is asked for again until it is", async () => {
  let there = false;
  const { gd, asked } = begin((url) => (there && url.endsWith("/a.bin") ? 0.5 : null));
  AT.set(EPS, 0);
  fetchStepped(EPS);
  await settle();
  assert.deepEqual(asked.map(fileOf), ["a.bin"]);
  assert.equal(figureAt(gd, LAM, 0), null);
  there = true; // the workers finished it
  assert.ok(await held("lam-at-eps-0.5"));
  assert.equal(figureAt(gd, LAM, 0).data[0].name, "ε=0.5 λ=10");
  end();
});

test("on a local server the sets ahead are fetched before any step, and a step takes one at once", async () => {
  const { gd, asked } = begin((url) => (url.endsWith("/a.bin") ? 0.5 : 2), true);
  planAheadIdle();
  for (let i = 0; i < 100 && window.__dpvizAheadDocs.size < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(asked.map(fileOf).sort(), ["a.bin", "b.bin"]); // both sides, one request each
  assert.equal(FRAMES.size, 0); // kept apart until a step needs one
  AT.set(EPS, 2);
  fetchStepped(EPS); // the step: the set is the tab's at once, no request
  assert.ok(FRAMES.get("lam-at-eps-2"));
  assert.equal(figureAt(gd, LAM, 0).data[0].name, "ε=2 λ=10");
  assert.equal(asked.length, 2);
  assert.ok(!window.__dpvizAheadDocs.has("lam-at-eps-2"));
  // a new setting names other sets: the ones kept for the last are let go at the next turn
  gd.__dpviz.sliders[LAM].ahead = { [EPS]: [[4, "lam-at-eps-4", "app/static/frames/c.bin"]] };
  planAheadIdle();
  for (let i = 0; i < 100 && !window.__dpvizAheadDocs.has("lam-at-eps-4"); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual([...window.__dpvizAheadDocs.keys()], ["lam-at-eps-4"]);
  window.__dpvizAheadDocs.clear();
  end();
});

test("on a local server the sets ahead wait for the page's first drawings", async () => {
  const { gd, asked } = begin((url) => (url.endsWith("/a.bin") ? 0.5 : 2), true);
  const other = { isConnected: true, getBoundingClientRect: gd.getBoundingClientRect, __dpviz: { sliders: {} } };
  CHARTS.add(other); // a chart whose first drawing is still to come (plotly.js loading)
  planAheadIdle();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(asked, []);
  other._fullLayout = {}; // drawn
  for (let i = 0; i < 100 && window.__dpvizAheadDocs.size < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(asked.map(fileOf).sort(), ["a.bin", "b.bin"]);
  window.__dpvizAheadDocs.clear();
  clearTimeout(window.__dpvizAheadIdle.timer);
  end();
});

test("on a hosted demo nothing is fetched before a step; a running page does not hold the fetches back", async () => {
  const { asked } = begin(() => null, false);
  planAheadIdle();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(asked, []); // hosted: only at a step
  chart(true);
  const running = { dataset: { testScriptState: "running" } }; // Streamlit's app element while the page runs
  globalThis.document.querySelector = (sel) => (sel.includes("stApp") ? running : null);
  planAheadIdle();
  // fetched while the page runs (shots.js pageRuns: holding them back left a key step's sets 0.3 s later)
  for (let i = 0; i < 100 && asked.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(asked.length >= 1);
  globalThis.document.querySelector = () => null;
  clearTimeout(window.__dpvizAheadIdle.timer);
  window.__dpvizAheadIdle.missed.clear();
  forgetWaiting();
});
