// The order a slider's shots are made in (webui/live_js/shots.js shotOrder): the positions a key
// reaches first, the grid's ends, then coarse to fine, so that a drag across the whole grid meets
// shots all along it while only some are made. And a chart's shots made with margins it has since
// outgrown are dropped (dropOutgrown).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

const { NEAR_SHOTS, shotOrder, dropOutgrown, shotKey, grewHere } = await import("../../webui/live_js/shots.js");

// the largest run of positions without a shot among the first `m` of the order
function widestGap(order, n, m) {
  const made = new Set(order.slice(0, m).map(([i]) => i));
  let gap = 0;
  let run = 0;
  for (let i = 0; i < n; i++) {
    run = made.has(i) ? 0 : run + 1;
    gap = Math.max(gap, run);
  }
  return gap;
}

for (const [at, n] of [[0, 1], [0, 2], [1, 3], [48, 97], [0, 97], [96, 97], [10, 53], [52, 53], [5, 8], [3, 4]]) {
  test(`every position once, places in order (at ${at} of ${n})`, () => {
    const order = shotOrder(at, n);
    assert.deepEqual(order.map(([i]) => i).sort((a, b) => a - b), [...Array(n).keys()]);
    assert.deepEqual(order.map(([, place]) => place), [...Array(n).keys()]);
  });
}

test("the two ends come first (the widest tick labels), then the positions a key reaches, nearest first", () => {
  const order = shotOrder(40, 97).map(([i]) => i);
  assert.deepEqual(order.slice(0, 2), [0, 96]);
  assert.deepEqual(order.slice(2, 2 * NEAR_SHOTS + 3), [40, 39, 41, 38, 42, 37, 43]);
});

test("then coarse to fine: each pass halves the widest run of positions without a shot", () => {
  const n = 97;
  const order = shotOrder(40, n);
  const near = 2 * NEAR_SHOTS + 1 + 2;
  // after the near ones, the ends and the every-16th pass, no run of more than 15 unshot positions
  const passes = [16, 8, 4, 2, 1].map((s) => near + order.slice(near).filter(([i]) => Math.abs(i - 40) % s === 0 && Math.abs(i - 40) > NEAR_SHOTS && i !== 0 && i !== n - 1).length);
  let before = Infinity;
  for (const [k, s] of [16, 8, 4, 2, 1].entries()) {
    const gap = widestGap(order, n, passes[k]);
    assert.ok(gap <= s - 1, `after the every-${s}th pass the widest gap is ${gap}`);
    assert.ok(gap < before || gap === 0);
    before = gap;
  }
  // (nearest first, the first 20 shots were positions 31-50: 46 in a row after them unshot)
  assert.ok(widestGap(order, n, 20) <= 15);
});

test("a slider at an end: its near positions on one side, then the far end", () => {
  const order = shotOrder(0, 20).map(([i]) => i);
  assert.deepEqual(order.slice(0, 5), [0, 19, 1, 2, 3]);
});

test("a shot made with margins the chart has outgrown is dropped; the others stay", () => {
  const box = { width: 600, height: 400 };
  const options = [1, 2, 3, 4];
  const gd = { __dpviz: { sliders: { v: { frames: "set-a", options }, w: { frames: "set-b", options } } }, __dpvizSides: new Map() };
  gd.__dpvizSides.set("600x400", { l: 70, r: 30 });
  const old = [shotKey(gd, "v", 1, box), shotKey(gd, "w", 2, box)];
  const other = shotKey(gd, "v", 1, { width: 300, height: 400 }); // another size: its own margins
  gd.__dpvizShots = new Map([...old, other].map((k) => [k, {}]));
  gd.__dpvizSides.set("600x400", { l: 88, r: 30 }); // a wider tick label
  const kept = shotKey(gd, "v", 3, box);
  gd.__dpvizShots.set(kept, {});
  dropOutgrown(gd, box);
  assert.deepEqual([...gd.__dpvizShots.keys()].sort(), [other, kept].sort());
});

test("a shot whose drawing widened the margins is kept when it drew them as the chart keeps them", () => {
  const box = { width: 600, height: 400 };
  const options = [1, 2, 3, 4];
  const chart = () => ({ __dpviz: { sliders: { v: { frames: "set-a", options } } }, __dpvizSides: new Map([["600x400", { l: 70, r: 30 }]]) });
  // what makeShot sees: the key and look before Plotly drew, keepSides' margins after
  const drawn = (gd, got, change = () => {}) => {
    const key = shotKey(gd, "v", 1, box);
    const look = key.slice(key.indexOf("600x400"));
    gd.__dpvizSides.set("600x400", { l: Math.max(70, Math.round(got.l)), r: Math.max(30, Math.round(got.r)) });
    change(gd);
    return grewHere(gd, box, { _fullLayout: { _size: got } }, key, look, shotKey(gd, "v", 1, box));
  };
  assert.equal(drawn(chart(), { l: 88, r: 30 }), true); // Plotly widened the left margin for this frame
  assert.equal(drawn(chart(), { l: 88, r: 24 }), false); // its right margin narrower than the chart's: drawn again
  assert.equal(drawn(chart(), { l: 87.6, r: 30 }), false); // not a whole pixel: the chart keeps 88
  const shifted = (gd) => (gd.__dpvizShift = new Map([["600x400", 12]]));
  assert.equal(drawn(chart(), { l: 88, r: 30 }, shifted), false); // the legend moved meanwhile
  const otherSet = (gd) => (gd.__dpviz.sliders.v.frames = "set-b");
  assert.equal(drawn(chart(), { l: 88, r: 30 }, otherSet), false); // the chart reads another set now
});

test("the slider moved last: its ends with the other's, its near positions after the other's first places, the rest after all of it", async () => {
  const { SHOTS, planShots, LAST_MOVED_NEAR, shotOrder } = await import("../../webui/live_js/shots.js");
  const { CHARTS, FRAMES } = await import("../../webui/live_js/state.js");
  globalThis.document = { fullscreenElement: null, querySelector: () => null, querySelectorAll: () => [] };
  window.innerWidth = 1280;
  window.innerHeight = 800;
  const grid = (n) => [...Array(n).keys()].map((i) => i + 1);
  const doc = (n) => ({ index: new Map(grid(n).map((v, i) => [v, i])) });
  FRAMES.set("along-a", doc(20));
  FRAMES.set("along-b", doc(30));
  const gd = {
    isConnected: true,
    _fullLayout: {},
    parentElement: { clientWidth: 600 },
    getBoundingClientRect: () => ({ top: 100, bottom: 500, left: 0, right: 600, width: 600, height: 400 }),
    __dpviz: { height: 400, sliders: { a: { options: grid(20), at: 10, frames: "along-a" }, b: { options: grid(30), at: 5, frames: "along-b" } } },
  };
  CHARTS.clear();
  CHARTS.add(gd);
  SHOTS.busy = true; // (nothing is drawn here: only the plan is looked at)
  try {
    SHOTS.lastMoved = "a";
    planShots(undefined, true);
    const order = SHOTS.queue.map(([, label, i]) => `${label}${i}`);
    assert.equal(order.length, 50);
    const firstOfA = order.filter((j) => j.startsWith("a")).slice(0, 9);
    assert.deepEqual(firstOfA, ["a0", "a19", "a9", "a8", "a10", "a7", "a11", "a6", "a12"]); // ends, then near
    assert.deepEqual(order.slice(0, 4).sort(), ["a0", "a19", "b0", "b29"]); // every slider's ends first
    // then b's places up to a's first near one's, 2 + LAST_MOVED_NEAR (b's ends, near positions and
    // every 16th, and some of every 8th), before a's near ones
    const bFirst = shotOrder(4, 30).filter(([, place]) => place < 2 + LAST_MOVED_NEAR).map(([i]) => `b${i}`);
    assert.equal(bFirst.length, 2 + LAST_MOVED_NEAR);
    const firstNearA = order.indexOf("a9");
    assert.deepEqual(order.slice(0, firstNearA).filter((j) => j.startsWith("b")).sort(), [...bFirst].sort());
    const lastB = order.lastIndexOf(order.filter((j) => j.startsWith("b")).at(-1));
    assert.ok(order.slice(0, lastB).filter((j) => j.startsWith("a")).length === 9); // a's others after all of b
    SHOTS.lastMoved = "b"; // the other way round
    planShots(undefined, true);
    const again = SHOTS.queue.map(([, label, i]) => `${label}${i}`);
    const lastA = again.lastIndexOf(again.filter((j) => j.startsWith("a")).at(-1));
    const bFirstRanked = shotOrder(4, 30).filter(([, , first]) => first).map(([i]) => `b${i}`);
    const bBefore = again.slice(0, lastA).filter((j) => j.startsWith("b"));
    assert.ok(bBefore.length >= 2 && bBefore.every((j) => bFirstRanked.includes(j))); // b's others after all of a
  } finally {
    SHOTS.busy = false;
    SHOTS.queue = [];
    delete SHOTS.lastMoved;
    CHARTS.clear();
  }
});
