// A key's shot (webui/live_js/shots.js) waits, over the chart, to be drawn by Plotly once the keys
// settle (drawShown). A figure given to Plotly after the shot was shown (the server's answer to a
// later press) supersedes it: the settle step must not draw the older shot's figure over the newer
// drawing (a chart showed the frame of n = 10 while its slider and the server's answer said 12).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { noteShown, shotCurrent, showShot } from "../../webui/live_js/shots.js";

function chart() {
  const box = { querySelectorAll: () => [], insertBefore: () => {}, firstChild: null };
  return { querySelector: (sel) => (sel === ".svg-container" ? box : null), dispatchEvent: () => true, __dpviz: {} };
}
const shot = (name) => ({ name, node: { remove: () => {} }, figure: { name } });

test("a shot shown after the chart's last Plotly figure is current; a later figure makes it stale", () => {
  const gd = chart();
  assert.equal(shotCurrent(gd), false); // no shot
  noteShown(gd); // the chart drawn by Plotly
  assert.ok(showShot(gd, shot("n=10"), "n=10"));
  assert.equal(shotCurrent(gd), true);
  assert.equal(gd.__dpvizDrawn.tag, "n=10");
  noteShown(gd); // the server's answer for n = 12 given to Plotly
  assert.equal(shotCurrent(gd), false);
  assert.ok(showShot(gd, shot("n=13"), "n=13")); // the next press's shot is current again
  assert.equal(shotCurrent(gd), true);
  assert.equal(gd.__dpvizShotTag, "n=13");
});

test("the order is per chart: another chart's drawing does not make a shot stale", () => {
  const a = chart();
  const b = chart();
  showShot(a, shot("a"), "eps=3");
  noteShown(b);
  assert.equal(shotCurrent(a), true);
  assert.equal(shotCurrent(b), false);
});

test("a plan of shots coming later is brought forward, one coming sooner stands", async () => {
  const { SHOTS, planSoon, planForFrames, FRESH_FRAMES_SHOTS } = await import("../../webui/live_js/shots.js");
  const now = performance.now();
  planSoon(1500);
  const first = SHOTS.soonAt;
  assert.ok(first >= now + 1500);
  planSoon(1500); // a page drawing chart after chart does not put it off
  assert.equal(SHOTS.soonAt, first);
  planForFrames(); // no key pressed, no drag: the page's own pace
  assert.equal(SHOTS.soonAt, first);
  SHOTS.keyAt = performance.now(); // the reader moved a slider: new frames' shots at once
  planForFrames();
  assert.ok(SHOTS.soonAt < first && SHOTS.soonAt <= performance.now() + FRESH_FRAMES_SHOTS);
  const brought = SHOTS.soonAt;
  planSoon(1500);
  assert.equal(SHOTS.soonAt, brought);
  clearTimeout(SHOTS.soon);
  SHOTS.soon = null;
  delete SHOTS.keyAt;
});

