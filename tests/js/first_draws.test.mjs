// A page's first drawings take turns (webui/live_js/first_draws.js): one chart a task, the charts
// in the window first, then the others in the order they came; a chart drawn before is redrawn at
// once. Before, every chart waiting for plotly.js was drawn in one go, with no paint between them.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

const { firstTurn } = await import("../../webui/live_js/first_draws.js");
const chart = (name, shown) => ({ name, shown, isConnected: true });
const inView = (gd) => gd.shown;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("the charts in the window first, one a task, then the rest in the order they came", async () => {
  const drawn = [];
  const charts = [chart("a", false), chart("b", true), chart("c", false), chart("d", true)];
  const done = charts.map((gd) => firstTurn(gd, () => {
    drawn.push(gd.name);
    gd._fullLayout = {};
    return Promise.resolve(gd.name);
  }, inView));
  for (let i = 0; i < 20; i++) await Promise.resolve(); // the rest of this task
  assert.equal(drawn.length, 1, "more than one chart drawn before the browser could paint");
  assert.deepEqual(await Promise.all(done), ["a", "b", "c", "d"]); // each promise settles as its work's
  assert.deepEqual(drawn, ["b", "d", "a", "c"]);
});

test("a chart drawn before is redrawn at once, even while first drawings wait", async () => {
  const order = [];
  let release;
  const slow = firstTurn(chart("slow", true), () => new Promise((r) => (release = r)).then(() => order.push("slow")), inView);
  const waiting = firstTurn(chart("new", true), () => order.push("new"), inView);
  const drawnBefore = { ...chart("old", true), _fullLayout: {} };
  await firstTurn(drawnBefore, () => order.push("old"), inView);
  assert.deepEqual(order, ["old"]);
  while (!release) await tick(); // the slow one's turn has come
  assert.deepEqual(order, ["old"]); // the new one waits for it
  release();
  await slow;
  await waiting;
  assert.deepEqual(order, ["old", "slow", "new"]);
});

test("a drawing that fails ends its turn: the next chart is drawn, the failure is the caller's", async () => {
  const failed = firstTurn(chart("bad", true), () => Promise.reject(new Error("no")), inView);
  const next = firstTurn(chart("next", true), () => "drawn", inView);
  await assert.rejects(failed, /no/);
  assert.equal(await next, "drawn");
  await tick();
});

test("out of the window, a first drawing waits while its caller says so (the page runs); in the window, it does not", async () => {
  const drawn = [];
  let running = true;
  const runs = () => running;
  const draw = (gd) => () => {
    drawn.push(gd.name);
    gd._fullLayout = {};
  };
  const below = chart("below", false);
  const top = chart("top", true);
  const belowDone = firstTurn(below, draw(below), inView, runs);
  const topDone = firstTurn(top, draw(top), inView, runs);
  await topDone;
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 60)); // 300 ms: three looks
  assert.deepEqual(drawn, ["top"]); // the chart below waits for the run's end
  below.shown = true; // scrolled into the window while the run goes on
  await belowDone;
  assert.deepEqual(drawn, ["top", "below"]);

  const later = chart("later", false);
  const laterDone = firstTurn(later, draw(later), inView, runs);
  await new Promise((r) => setTimeout(r, 150));
  assert.deepEqual(drawn, ["top", "below"]);
  running = false; // the run has ended: drawn without coming into the window
  await laterDone;
  assert.deepEqual(drawn, ["top", "below", "later"]);
});
