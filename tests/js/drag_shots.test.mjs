// A drag over a slider whose shots are only some of its positions (webui/live_js/sliders.js
// follow): a position without a shot shows the shot of a position the drag crossed since its last
// move, nearest the slider (never one the slider has not reached), and its own drawing by Plotly
// waits DRAG_WAIT ms for the next move, so that a shot a move later is not held up behind a 40-80 ms
// drawing; a mouse that stops there, or lets go, gets the position drawn. With no shot near, Plotly
// draws at once, as before.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document = { fullscreenElement: null, baseURI: "http://localhost/", querySelector: () => null, querySelectorAll: () => [] };
window.innerWidth = 1280;
window.innerHeight = 800;
window.requestAnimationFrame = (f) => setTimeout(f, 0);
window.cancelAnimationFrame = (id) => clearTimeout(id);
window.requestIdleCallback = () => 0; // (the shots planned after a drag are not made here)
const reacts = [];
window.Plotly = {
  react(gd, data, layout) {
    gd._fullLayout = gd._fullLayout || {};
    gd.data = data;
    gd.layout = layout;
    reacts.push(data[0].name);
    return Promise.resolve();
  },
};
const { useMeasure } = await import("../../webui/live_js/text_fit.js");
useMeasure((t, px) => 0.6 * px * String(t).length);
const { CHARTS, FRAMES } = await import("../../webui/live_js/state.js");
const { DRAGGED_FROM, DRAG_WAIT, MOVED, follow } = await import("../../webui/live_js/sliders.js");
const { SHOTS, endDrag, shotKey } = await import("../../webui/live_js/shots.js");

const OPTIONS = [...Array(12).keys()].map((i) => i + 1);
FRAMES.set("set", {
  base: { data: [{ type: "scatter", name: "v=1", x: [1, 2], y: [1, 2] }], layout: {} },
  patches: OPTIONS.map((v) => ({ traces: { 0: { name: `v=${v}` } } })),
  index: new Map(OPTIONS.map((v, i) => [v, i])),
});
function chart(shotAt) {
  const box = { insertBefore() {}, querySelectorAll: () => [], firstChild: null };
  const gd = {
    isConnected: true,
    parentElement: { clientWidth: 600 },
    getBoundingClientRect: () => ({ top: 0, bottom: 400, left: 0, right: 600, width: 600, height: 400 }),
    querySelector: (sel) => (sel === ".svg-container" ? box : null),
    querySelectorAll: () => [],
    dispatchEvent: () => true,
    setAttribute: () => {},
    __dpviz: { height: 400, plotly: "plotly.js", config: {}, sliders: { v: { options: OPTIONS, at: 1, frames: "set" } } },
  };
  gd.__dpvizShots = new Map(shotAt.map((i) => [shotKey(gd, "v", i), { node: { remove() {} }, figure: null, i }]));
  CHARTS.clear();
  CHARTS.add(gd);
  DRAGGED_FROM.clear(); // (a drag begins: the pointer went down on the slider)
  return gd;
}
DRAG_WAIT.ms = 1000; // long enough that no drawing waits it out between two moves on a busy machine
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// until `ok()` holds (a drawing goes through promises and turns: its time is the machine's)
async function until(ok, what, ms = 3000) {
  for (let t = 0; t < ms / 10 && !ok(); t++) await wait(10);
  assert.ok(ok(), what);
}
const move = (i) => {
  MOVED.set("v", i);
  follow();
};

test("a crossed shot is shown, the position's own drawing waits, then comes if no move does", async () => {
  const gd = chart([4, 8]);
  reacts.length = 0;
  SHOTS.dragging = true;
  try {
    move(1); // no shot crossed, none near, nothing drawn for a while: Plotly draws v = 2
    await until(() => reacts.length === 1, "v = 2 drawn");
    assert.deepEqual(reacts, ["v=2"]);
    move(5); // crossed the shot of index 4 (v = 5): shown, index 5's drawing waits
    assert.equal(gd.__dpvizShot.i, 4);
    assert.equal(gd.__dpvizDrawn.tag, "v=4");
    move(6); // no shot crossed (index 5 only), a shot two on: still waiting, now for index 6
    await wait(30);
    assert.deepEqual(reacts, ["v=2"]); // nothing drawn meanwhile
    move(8); // the shot of index 8 itself
    assert.equal(gd.__dpvizShot.i, 8);
    assert.equal(gd.__dpvizDrawn.tag, "v=8");
    move(10); // crossed index 9 (no shot): a shot at 8 is behind, not crossed since the last move
    await until(() => reacts.length === 2, "index 10 drawn once the mouse stopped there"); // (after DRAG_WAIT)
    assert.deepEqual(reacts, ["v=2", "v=11"]);
    assert.equal(gd.__dpvizDrawn.tag, "v=10");
  } finally {
    SHOTS.dragging = false;
  }
});

test("never a shot the slider has not reached; a wait is drawn at once when the mouse lets go", async () => {
  const gd = chart([3, 4, 5]);
  reacts.length = 0;
  SHOTS.dragging = true;
  move(2); // the drag's first move, next to shots ahead: none shown of them
  await until(() => reacts.length === 1, "index 2 drawn");
  assert.equal(gd.__dpvizShot, undefined);
  assert.deepEqual(reacts, ["v=3"]);
  DRAG_WAIT.ms = 800;
  move(6); // crossed 5, 4, 3: the nearest the slider shown
  assert.equal(gd.__dpvizShot.i, 5);
  assert.equal(gd.__dpvizDrawn.tag, "v=5");
  endDrag(); // let go at index 6: drawn now, not after the wait
  await until(() => reacts.at(-1) === "v=7", "index 6 drawn on letting go, before the wait is up", 600);
  assert.equal(gd.__dpvizDrawn.tag, "v=6");
  await wait(900); // the wait's timer has come: it finds nothing left to draw
  DRAG_WAIT.ms = 1000;
  assert.equal(reacts.filter((r) => r === "v=7").length, 1); // and not again when the wait is up
  clearTimeout(SHOTS.soon);
  Object.assign(SHOTS, { soon: null, busy: false, queue: [] });
});

test("with no shot near, every move is drawn by Plotly as it comes", async () => {
  const gd = chart([]);
  reacts.length = 0;
  SHOTS.dragging = true;
  try {
    for (const [k, i] of [1, 3, 5].entries()) {
      move(i);
      await until(() => reacts.length === k + 1, `index ${i} drawn`);
    }
    assert.deepEqual(reacts, ["v=2", "v=4", "v=6"]);
    assert.equal(gd.__dpvizDrawn.tag, "v=5");
  } finally {
    SHOTS.dragging = false;
  }
});
