// plotly.js is loaded from the first of the page's sources that loads (webui/live_js/chart.js
// `plotly`): dpviz's own bundle, then Streamlit's copy. A source that fails to load (a static
// folder not served: a 404) falls through to the next; the module is loaded once per tab.
import "./dom_stub.mjs";
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

const { plotly } = await import("../../webui/live_js/chart.js");
let made = 0; // each source a new URL: a module already imported is not run again
const module = (body) => "data:text/javascript," + encodeURIComponent(`${body} // ${made++}`);
const loads = (name) => module(`window.__loads = (window.__loads || 0) + 1; window.Plotly = { name: ${JSON.stringify(name)} };`);

beforeEach(() => {
  delete window.Plotly;
  delete window.__dpvizPlotly;
  window.__loads = 0;
  globalThis.document = globalThis.document || {};
  document.baseURI = document.baseURI || "http://localhost:8501/";
});

test("the first source that loads gives Plotly, once per tab", async () => {
  const first = await plotly([loads("dpviz"), loads("streamlit")]);
  assert.equal(first.name, "dpviz");
  assert.equal(await plotly([loads("other")]), first);
  assert.equal(window.__loads, 1);
});

test("a source that fails falls through to the next", async () => {
  const got = await plotly([module("throw new Error('404')"), loads("streamlit")]);
  assert.equal(got.name, "streamlit");
});

test("a source that loads but sets no Plotly falls through too", async () => {
  const got = await plotly([module("window.__nothing = 1;"), loads("streamlit")]);
  assert.equal(got.name, "streamlit");
});

test("a single URL is a list of one; none that loads is an error, not a hang", async () => {
  assert.equal((await plotly(loads("one"))).name, "one");
  delete window.Plotly;
  delete window.__dpvizPlotly;
  await assert.rejects(plotly([module("throw new Error('no')")]), /could not be loaded/);
});

test("a gzipped source is fetched, unpacked and imported; a missing one falls through", async () => {
  const { gzipSync } = await import("node:zlib");
  const served = new Map([["http://localhost:8501/app/static/p.min.js.gz", gzipSync(`window.Plotly = { name: "packed" }; // ${made++}`)]]);
  const realFetch = globalThis.fetch, RealBlob = globalThis.Blob, realCreate = URL.createObjectURL;
  globalThis.fetch = async (url) => (served.has(url) ? new Response(served.get(url)) : new Response("no", { status: 404 }));
  // (Node imports no blob: URL; the page does) the unpacked text as a data: URL instead
  globalThis.Blob = class { constructor(parts) { this.text = parts.join(""); } };
  URL.createObjectURL = (blob) => "data:text/javascript," + encodeURIComponent(blob.text);
  URL.revokeObjectURL = () => {};
  try {
    assert.equal((await plotly(["app/static/p.min.js.gz", loads("plain")])).name, "packed");
    delete window.Plotly;
    delete window.__dpvizPlotly;
    assert.equal((await plotly(["app/static/gone.min.js.gz", loads("plain")])).name, "plain");
  } finally {
    globalThis.fetch = realFetch;
    globalThis.Blob = RealBlob;
    URL.createObjectURL = realCreate;
  }
});
