// A key press that came before the charts held a frame of the slider's new position (the nearest
// part of the frames still being computed after another slider moved): when those frames arrive,
// the chart is drawn from them at once (sliders.js catchUp), not when the server's answer to the
// press comes, seconds later on a busy server. A chart already showing that frame is left alone,
// and a slider where the server drew the chart is no move.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

const inputs = [];
globalThis.document = {
  fullscreenElement: null,
  baseURI: "http://localhost/",
  querySelectorAll: (sel) => (sel.startsWith("input") ? inputs : []),
  querySelector: () => null, // (no Streamlit app element: the page is not running)
};
const reacts = [];
window.Plotly = {
  react(gd, data, layout) {
    gd._fullLayout = gd._fullLayout || {}; // as plotly.js sets at once (a chart drawn before)
    gd.data = data;
    gd.layout = layout;
    reacts.push(data[0].name);
    return Promise.resolve();
  },
};
window.requestAnimationFrame = (f) => setTimeout(f, 0);
window.cancelAnimationFrame = (id) => clearTimeout(id);
const { useMeasure } = await import("../../webui/live_js/text_fit.js");
useMeasure((t, px) => 0.6 * px * String(t).length);
const { CHARTS, FRAMES } = await import("../../webui/live_js/state.js");
const { catchUp } = await import("../../webui/live_js/sliders.js");

const LABEL = "λ";
const OPTIONS = [1, 2, 4, 8];
function slider(index) {
  return { value: String(index), getAttribute: (name) => (name === "aria-label" ? LABEL : null) };
}
function chart(at, frames) {
  const gd = {
    isConnected: true,
    parentElement: { clientWidth: 600 },
    getBoundingClientRect: () => ({ top: 0, bottom: 400, left: 0, right: 600, width: 600, height: 400 }),
    querySelector: () => null,
    querySelectorAll: () => [],
    dispatchEvent: () => true,
    setAttribute: () => {},
    __dpviz: { height: 400, plotly: "plotly.js", config: {}, sliders: { [LABEL]: { options: OPTIONS, at, frames } } },
  };
  CHARTS.add(gd);
  return gd;
}
// frames along λ at every option, each figure's one trace named by its value
function frames() {
  const base = { data: [{ type: "scatter", name: `λ=${OPTIONS[0]}`, x: [1, 2], y: [1, 2] }], layout: {} };
  return {
    base,
    patches: OPTIONS.map((v) => ({ traces: { 0: { name: `λ=${v}` } } })),
    index: new Map(OPTIONS.map((v, i) => [v, i])),
  };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

test("frames that arrive after a key press draw the chart at the slider's new position", async () => {
  CHARTS.clear();
  reacts.length = 0;
  const gd = chart(2, "set-a-near"); // the server drew λ = 2 (index 1)
  inputs.length = 0;
  inputs.push(slider(2)); // the key moved the slider to λ = 4 before any frame was there
  catchUp("set-b-near"); // another set's frames: nothing to do here
  await settle();
  assert.deepEqual(reacts, []);
  FRAMES.set("set-a-near", frames());
  catchUp("set-a-near");
  await settle();
  assert.equal(gd.__dpvizShownTag, `${LABEL}=2`);
  assert.deepEqual(reacts.slice(0, 1), ["λ=4"]);
  const drawn = reacts.length;
  catchUp("set-a-near"); // the same frames again: the chart shows that frame already
  await settle();
  assert.equal(reacts.length, drawn);
});

test("a slider where the server drew the chart is no move", async () => {
  CHARTS.clear();
  reacts.length = 0;
  FRAMES.set("set-c", frames());
  const gd = chart(4, "set-c");
  inputs.length = 0;
  inputs.push(slider(2)); // λ = 4: where the server drew it
  catchUp("set-c");
  await settle();
  assert.deepEqual(reacts, []);
  assert.equal(gd.__dpvizShownTag, undefined);
});
