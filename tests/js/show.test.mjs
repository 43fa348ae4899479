// A chart's figures are drawn by Plotly.react, which is asynchronous; the first drawing of a
// figure whose legend sits below the plot takes a second pass (settleLegend) once the first is
// done. A newer figure given meanwhile (the server's answer for n = 12 after n = 11's) is drawn by
// its own call: the older figure's second pass must not put it back over the newer one, nor its
// end say it is the one drawn (a chart showed n = 11's figure, tagged as the server's answer for 12).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document = globalThis.document || {
  fullscreenElement: null,
  baseURI: "http://localhost/",
  querySelector: () => null, // (no Streamlit app element: the page is not running)
};
const reacts = [];
window.Plotly = {
  react(gd, data, layout) {
    gd._fullLayout = gd._fullLayout || {}; // as plotly.js sets at once (a chart drawn before)
    gd.layout = layout;
    gd.data = data;
    let release;
    const done = new Promise((resolve) => (release = resolve));
    reacts.push({ name: data[0].name, release });
    return done;
  },
};
const { useMeasure } = await import("../../webui/live_js/text_fit.js");
useMeasure((t, px) => 0.6 * px * String(t).length); // a text's width, as Node has no canvas
const { show } = await import("../../webui/live_js/chart.js");

const text = { getBoundingClientRect: () => ({ height: 12, bottom: 300 }) };
function chart() {
  return {
    parentElement: { clientWidth: 600 },
    __dpviz: { height: 400, plotly: "plotly.js", config: {} },
    querySelector: (sel) => (sel === ".legend" ? { getBoundingClientRect: () => ({ top: 290 }) } : null),
    querySelectorAll: (sel) => (sel.includes("xaxislayer") ? [text] : []),
    dispatchEvent: () => true,
    setAttribute: () => {},
  };
}
const figure = (name) => ({
  data: [{ type: "scatter", name, x: [1, 2], y: [1, 2] }],
  layout: { title: { text: name }, legend: { orientation: "h", y: -0.3 } },
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("an older figure's legend pass does not draw it over a newer figure", async () => {
  const gd = chart();
  const older = figure("n=11");
  const newer = figure("n=12");
  show(gd, older, "server-ref");
  await settle();
  show(gd, newer, "server-ref");
  await settle();
  assert.deepEqual(reacts.map((r) => r.name), ["n=11", "n=12"]);
  reacts[0].release(); // the older figure's first pass ends after the newer one was asked for
  await settle();
  reacts[1].release();
  await settle();
  for (const r of reacts.slice(2)) r.release(); // any later pass
  await settle();
  await settle();
  assert.equal(reacts.at(-1).name, "n=12", `Plotly was last given ${reacts.at(-1).name}`);
  assert.equal(gd.data[0].name, "n=12");
  assert.equal(gd.__dpvizDrawn.tag, "server-ref");
  assert.equal(gd.__dpvizShown, newer);
});

test("a figure alone still gets its legend pass", async () => {
  reacts.length = 0;
  const gd = chart();
  show(gd, figure("alone"), "server");
  await settle();
  reacts[0].release();
  await settle();
  assert.deepEqual(reacts.map((r) => r.name), ["alone", "alone"]); // drawn again with the legend moved
  reacts[1].release();
  await settle();
  await settle();
  assert.equal(gd.__dpvizDrawn.tag, "server");
});

test("a message that replaced the chart's state and drew nothing does not stop a key's drawing", async () => {
  // the late answer to the last key press: it replaces gd.__dpviz and draws nothing, because the
  // chart already shows the frame of where the slider is now; that frame's drawing must still end
  // as drawn (its tag said, its legend pass made), not wait for the server's answer to this press
  reacts.length = 0;
  const gd = chart();
  const said = [];
  gd.dispatchEvent = (e) => said.push(e.detail);
  show(gd, figure("λ=3"), "λ=3");
  await settle();
  gd.__dpviz = { height: 400, plotly: "plotly.js", config: {} }; // the late answer's state
  reacts[0].release();
  await settle();
  assert.deepEqual(reacts.map((r) => r.name), ["λ=3", "λ=3"]); // the legend's second pass made
  reacts[1].release();
  await settle();
  await settle();
  assert.equal(gd.__dpvizDrawn && gd.__dpvizDrawn.tag, "λ=3");
  assert.deepEqual(said, ["λ=3"]);
});

test("the same figure drawn again for a newer message: the older drawing's end does not say it is the one drawn", async () => {
  // a key's frame in its legend pass when the server's answer to that press, a reference to the same
  // frame, is drawn: the answer's drawing is the chart's, with the answer's tag and state, even when
  // the key's second pass ends after it (the chart's test waits for the answer's state)
  reacts.length = 0;
  const gd = chart();
  const frame = figure("λ=3");
  show(gd, frame, "λ=3");
  await settle();
  reacts[0].release(); // the first pass ends; the legend's second pass is asked for
  await settle();
  assert.equal(reacts.length, 2);
  const answer = (gd.__dpviz = { height: 400, plotly: "plotly.js", config: {} });
  show(gd, frame, "server-ref");
  await settle();
  assert.equal(reacts.length, 3); // drawn again for the answer
  reacts[2].release(); // the answer's drawing ends first (its legend was settled by the first pass)
  await settle();
  await settle();
  reacts[1].release(); // then the key's second pass
  await settle();
  await settle();
  for (const r of reacts.slice(3)) r.release();
  await settle();
  assert.equal(gd.__dpvizDrawn.tag, "server-ref");
  assert.equal(gd.__dpvizDrawn.state, answer);
});

test("a key's move back to the figure Plotly drew, from another position's shot, says it is drawn", async () => {
  // λ = 3 drawn by Plotly; a key shows λ = 2's shot over it; the next key comes back to λ = 3 before
  // the server answered: nothing is drawn again (Plotly's drawing is λ = 3's), the shot is taken
  // away, and the chart says λ = 3 is drawn (it told no one, and the chart's tag stayed λ = 2)
  const { showShot } = await import("../../webui/live_js/shots.js");
  reacts.length = 0;
  const gd = chart();
  const said = [];
  gd.dispatchEvent = (e) => said.push(e.detail);
  const box = { querySelectorAll: () => [], insertBefore: () => {}, firstChild: null };
  gd.querySelector = (sel) => (sel === ".svg-container" ? box : null);
  const three = figure("λ=3");
  show(gd, three, "λ=3");
  await settle();
  for (const r of reacts) r.release();
  await settle();
  await settle();
  assert.deepEqual(said, ["λ=3"]);
  gd._fullLayout = {}; // drawn once
  assert.ok(showShot(gd, { node: { remove: () => {} }, figure: figure("λ=2") }, "λ=2"));
  assert.equal(gd.__dpvizDrawn.tag, "λ=2");
  const drawn = reacts.length;
  show(gd, three, "λ=3", true);
  await settle();
  await settle();
  assert.equal(reacts.length, drawn); // not drawn again
  assert.equal(gd.__dpvizShot, null); // the shot taken away
  assert.equal(gd.__dpvizDrawn.tag, "λ=3");
  assert.deepEqual(said, ["λ=3", "λ=2", "λ=3"]);
});

test("a chart with no width (hidden, or taken off the page) is drawn at the width it had, not at the least width", async () => {
  // Plotly threw "Something went wrong with axis scaling" drawing the Partial page's DP-SGD chart at
  // 100 px (its legend under the plot in rows taller than the chart), its element just removed.
  // Nor is the drawing held back for a width to come: nothing might tell it (the width can come
  // back the same, and the size watcher then sees no change)
  reacts.length = 0;
  const gd = chart();
  show(gd, figure("σ=1"), "σ=1");
  await settle();
  for (const r of reacts) r.release();
  await settle();
  await settle();
  for (const r of reacts) r.release(); // (the legend's second pass)
  await settle();
  gd._fullLayout.width = gd.layout.width; // (as plotly.js keeps it)
  assert.equal(gd.layout.width, 600);
  const drawnAt = async (name) => {
    show(gd, figure(name), name, true);
    await settle();
    for (const r of reacts) r.release();
    await settle();
    assert.equal(reacts.at(-1).name, name);
    return gd.layout.width;
  };
  gd.parentElement.clientWidth = 0; // hidden
  assert.equal(await drawnAt("σ=2"), 600);
  gd.isConnected = false; // taken off the page (its container has no layout: no width either)
  assert.equal(await drawnAt("σ=3"), 600);
  assert.equal(gd.__dpvizPending, null);
  const { size } = await import("../../webui/live_js/chart.js");
  const unseen = chart(); // never drawn, in a container with no width
  unseen.parentElement.clientWidth = 0;
  assert.ok(size(unseen).width >= 300, `drawn ${size(unseen).width} px wide before it has a width`);
});
