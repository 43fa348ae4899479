// A shot is drawn ahead from the frame at the slider's option it is for. The chart's set of frames
// can be a nearest part (the 16 positions nearest the slider, while the whole set is computed) or
// a set whose slider also offers a link's value off the grid: in both, a frame's place in the set
// is not the option's index. Shots drawn from the frame at the option's index were another
// position's (never shown: the drag found them of another figure) or failed.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

function element() {
  return {
    style: {},
    setAttribute() {},
    appendChild() {},
    remove() {},
    isConnected: false,
    querySelectorAll: () => [],
  };
}
globalThis.document = {
  fullscreenElement: null,
  baseURI: "http://localhost/",
  createElement: element,
  body: { appendChild(el) { el.isConnected = true; } },
  querySelector: () => null,
  querySelectorAll: () => [],
};
window.Plotly = { react: (host, data) => { host.data = data; return Promise.resolve(); } };
const { useMeasure } = await import("../../webui/live_js/text_fit.js");
useMeasure((t, px) => 0.6 * px * String(t).length);
const { FRAMES } = await import("../../webui/live_js/state.js");
const { makeShot } = await import("../../webui/live_js/shots.js");

const OPTIONS = [1, 2, 3, 4, 5, 6, 7, 8];
// frames at `values`, each figure's trace named by its value
function frames(values) {
  return {
    base: { data: [{ type: "scatter", name: `v=${values[0]}`, x: [1, 2], y: [1, 2] }], layout: {} },
    patches: values.map((v) => ({ traces: { 0: { name: `v=${v}` } } })),
    index: new Map(values.map((v, i) => [v, i])),
  };
}
function chart(name, options = OPTIONS) {
  return {
    parentElement: { clientWidth: 600 },
    __dpviz: { height: 400, plotly: "plotly.js", config: {}, sliders: { v: { options, at: 4, frames: name } } },
  };
}

test("a shot from a nearest part is the frame of its option's value", async () => {
  FRAMES.set("near", frames([3, 4, 5, 6])); // the positions nearest v = 4
  const gd = chart("near");
  await makeShot(gd, "v", 4); // option index 4: v = 5, the set's third frame
  const shots = [...gd.__dpvizShots.values()];
  assert.equal(shots.length, 1);
  assert.equal(shots[0].figure.data[0].name, "v=5");
  await makeShot(gd, "v", 7); // v = 8: not in the nearest part, no shot (and no failure)
  assert.equal(gd.__dpvizShots.size, 1);
});

test("a link's value off the grid shifts the options, not the frames", async () => {
  FRAMES.set("whole", frames(OPTIONS));
  const gd = chart("whole", [1, 2, 2.5, 3, 4, 5, 6, 7, 8]); // a link opened the slider at 2.5
  await makeShot(gd, "v", 3); // v = 3
  assert.equal([...gd.__dpvizShots.values()][0].figure.data[0].name, "v=3");
  await makeShot(gd, "v", 2); // 2.5: no frame
  assert.equal(gd.__dpvizShots.size, 1);
});

test("a shot made from a nearest part is the whole set's shot too: not made again when it comes", async () => {
  const { shotKey } = await import("../../webui/live_js/shots.js");
  FRAMES.set("set-a-near", frames([3, 4, 5, 6]));
  const gd = chart("set-a-near");
  await makeShot(gd, "v", 4);
  const [made] = [...gd.__dpvizShots.keys()];
  FRAMES.set("set-a", frames(OPTIONS)); // the whole set came: the chart follows it
  gd.__dpviz.sliders.v.frames = "set-a";
  assert.equal(shotKey(gd, "v", 4), made);
  assert.ok(gd.__dpvizShots.has(shotKey(gd, "v", 4)));
  gd.__dpviz.sliders.v.frames = "set-b"; // another setting's set: another shot
  assert.ok(!gd.__dpvizShots.has(shotKey(gd, "v", 4)));
});

test("a drag shows a shot made from a nearest part once the whole set came, as the whole set's frame", async () => {
  const { SHOTS, shotKey } = await import("../../webui/live_js/shots.js");
  const { MOVED, follow } = await import("../../webui/live_js/sliders.js");
  const { CHARTS } = await import("../../webui/live_js/state.js");
  FRAMES.set("set-d-near", frames([3, 4, 5, 6]));
  const gd = chart("set-d-near");
  await makeShot(gd, "v", 4); // v = 5, from the nearest part
  const made = gd.__dpvizShots.get(shotKey(gd, "v", 4));
  FRAMES.set("set-d", frames(OPTIONS)); // the whole set came: the chart follows it
  gd.__dpviz.sliders.v.frames = "set-d";
  const box = { insertBefore() {}, querySelectorAll: () => [], firstChild: null };
  Object.assign(gd, {
    isConnected: true,
    getBoundingClientRect: () => ({ top: 0, bottom: 400, left: 0, right: 600, width: 600, height: 400 }),
    querySelector: (sel) => (sel === ".svg-container" ? box : null),
    dispatchEvent: () => true,
  });
  window.innerWidth = 1280;
  window.innerHeight = 800;
  window.cancelAnimationFrame = window.cancelAnimationFrame || (() => {});
  CHARTS.add(gd);
  const shown = SHOTS.shown;
  SHOTS.dragging = true;
  try {
    MOVED.set("v", 4);
    follow();
  } finally {
    SHOTS.dragging = false;
    CHARTS.delete(gd);
  }
  assert.equal(SHOTS.shown, shown + 1); // the shot, not a Plotly drawing
  assert.equal(gd.__dpvizShot, made);
  assert.equal(gd.__dpvizDrawn.tag, "v=4");
  const whole = FRAMES.get("set-d").made.get(4); // the whole set's frame of v = 5, now the shot's
  assert.equal(made.figure, whole);
  assert.equal(whole.data[0].name, "v=5");
});

test("a shot whose margins outgrow the chart's: the chart's older shots dropped, the plan made again, the shot kept at the new margins", async () => {
  const { SHOTS, shotKey } = await import("../../webui/live_js/shots.js");
  FRAMES.set("set-e", frames(OPTIONS));
  const gd = chart("set-e");
  gd.__dpvizSides = new Map([["600x400", { l: 70, r: 30 }]]); // (as the chart's own drawing left them)
  const react = window.Plotly.react;
  try {
    window.Plotly.react = (host, data) => {
      host.data = data;
      host._fullLayout = { _size: { l: 70, r: 30 } };
      return Promise.resolve();
    };
    await makeShot(gd, "v", 1);
    const older = shotKey(gd, "v", 1);
    assert.ok(gd.__dpvizShots.has(older));
    SHOTS.replan = false;
    window.Plotly.react = (host, data) => {
      host.data = data;
      host._fullLayout = { _size: { l: 88, r: 30 } }; // a wider tick label at this position
      return Promise.resolve();
    };
    await makeShot(gd, "v", 7);
    // the older one dropped; this one, drawn at the margins the chart keeps from now on, kept
    assert.deepEqual([...gd.__dpvizShots.keys()], [shotKey(gd, "v", 7)]);
    assert.ok(shotKey(gd, "v", 7).endsWith("|88,30|"));
    assert.equal(SHOTS.replan, true);
    SHOTS.replan = false;
    window.Plotly.react = (host, data, layout) => {
      host.data = data;
      // Plotly widens the margin past the one asked for (layout.margin.l) to a part of a pixel
      host._fullLayout = { _size: { l: Math.max(layout.margin.l, 95.4), r: 30 } };
      return Promise.resolve();
    };
    await makeShot(gd, "v", 3);
    assert.equal(gd.__dpvizShots.size, 0); // not the margins the chart keeps (95): made again later
    assert.equal(SHOTS.replan, true);
    await makeShot(gd, "v", 3); // now at the margins it needs
    assert.deepEqual([...gd.__dpvizShots.keys()], [shotKey(gd, "v", 3)]);
  } finally {
    window.Plotly.react = react;
    SHOTS.replan = false;
  }
});
