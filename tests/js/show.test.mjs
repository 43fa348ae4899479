// A chart's figures are drawn by Plotly.react, which is asynchronous; the first drawing of a
// figure whose legend sits below the plot takes a second pass (settleLegend) once the first is
// done. A newer figure given meanwhile (the server's answer for n = 12 after n = 11's) is drawn by
// its own call: the older figure's second pass must not put it back over the newer one, nor its
// end say it is the one drawn (a chart showed n = 11's figure, tagged as the server's answer for 12).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.document = globalThis.document || { fullscreenElement: null, baseURI: "http://localhost/" };
const reacts = [];
window.Plotly = {
  react(gd, data, layout) {
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
