// A chart whose frames are still being computed ("P": webui/live_js/chart.js) asks the server again
// (a run of the live section, by the element's trigger "check") every 2 s, and never while the page
// runs: a rerun asked for then would stop that run. Whether the page runs is what Streamlit's app
// element says (data-test-script-state; shots.js pageRuns).
import "./dom_stub.mjs";
import { mock, test } from "node:test";
import assert from "node:assert/strict";
import element from "../../webui/live_js/chart.js";
import { SHOTS } from "../../webui/live_js/shots.js";

SHOTS.soon = 1; // no shots planned here (they draw with Plotly)

test("a waiting chart asks again after 2 s, but not while the page runs", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  const app = { dataset: { testScriptState: "running" } };
  globalThis.document = { hidden: false, baseURI: "http://server/app/", querySelector: (s) => (s.includes("stApp") ? app : null) };
  const asks = [];
  const parentElement = { querySelector: () => null };
  const data = new TextEncoder().encode("Pkey-1\n1\nnull");
  try {
    element({ data, parentElement, setTriggerValue: (name, value) => asks.push([name, value]) });
    mock.timers.tick(2000);
    mock.timers.tick(2000);
    assert.deepEqual(asks, []); // the page runs: no ask
    app.dataset.testScriptState = "notRunning";
    mock.timers.tick(2000);
    assert.equal(asks.length, 1);
    assert.equal(asks[0][0], "check");
  } finally {
    clearTimeout(parentElement.__dpvizAsk);
    mock.timers.reset();
  }
});
