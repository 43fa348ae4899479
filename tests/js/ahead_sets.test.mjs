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
globalThis.document = { hidden: false, baseURI: "http://server/", fullscreenElement: null, querySelectorAll: () => [] };
window.requestAnimationFrame = (f) => setTimeout(f, 0);
window.cancelAnimationFrame = (id) => clearTimeout(id);
const { CHARTS, FRAMES } = await import("../../webui/live_js/state.js");
const { SHOTS } = await import("../../webui/live_js/shots.js");
const { AT, figureAt, setOf } = await import("../../webui/live_js/positions.js");
const { fetchStepped } = await import("../../webui/live_js/sliders.js");
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
function chart() {
  const gd = {
    isConnected: true,
    __dpviz: {
      sliders: {
        [EPS]: { frames: "eps-at-lam-20", options: EPS_OPTIONS, at: 1 },
        [LAM]: {
          frames: "lam-at-eps-1",
          options: LAM_OPTIONS,
          at: 20,
          // the sets along λ one key step of ε away, both sides (the server's ahead_for_browser)
          ahead: { [EPS]: [[0.5, "lam-at-eps-0.5", "app/static/frames/a.bin"], [2, "lam-at-eps-2", "app/static/frames/b.bin"]] },
        },
      },
    },
  };
  CHARTS.clear();
  CHARTS.add(gd);
  return gd;
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
  AT.clear();
});

test("at a key step the set is fetched at once and the other slider's moves are drawn from it", async () => {
  const gd = chart();
  AT.clear();
  FRAMES.clear();
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(String(url));
    if (String(url).endsWith("/b.bin")) return { ok: true, arrayBuffer: async () => packed(setAlongLambda(2)).buffer };
    return { ok: false, status: 404 };
  };
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
  AT.clear();
});

test("a set one step away that is not there yet is asked for again until it is", async () => {
  const gd = chart();
  AT.clear();
  FRAMES.clear();
  let there = false;
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(String(url).split("/").pop());
    if (there && String(url).endsWith("/a.bin")) return { ok: true, arrayBuffer: async () => packed(setAlongLambda(0.5)).buffer };
    return { ok: false, status: 404 };
  };
  AT.set(EPS, 0);
  fetchStepped(EPS);
  await settle();
  assert.deepEqual(asked, ["a.bin"]);
  assert.equal(figureAt(gd, LAM, 0), null);
  there = true; // the workers finished it
  assert.ok(await held("lam-at-eps-0.5"));
  assert.equal(figureAt(gd, LAM, 0).data[0].name, "ε=0.5 λ=10");
  AT.clear();
});
