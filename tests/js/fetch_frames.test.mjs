// Frames fetched as files (webui/live_js/fetch_frames.js, webui/frames_fetch.py): the tab asks for
// a waiting set's nearest part and then its whole set, one request at a time, until they are
// there; each file received is inflated into the tab's frames, and the charts read the most
// complete frames the tab holds.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { CHARTS, FRAMES } from "../../webui/live_js/state.js";
import { SHOTS } from "../../webui/live_js/shots.js";
import { bestKey, fetchFrames } from "../../webui/live_js/fetch_frames.js";

SHOTS.soon = 1; // no shots planned here (they draw with Plotly)
globalThis.dispatchEvent = () => true;
globalThis.document = { hidden: false, baseURI: "http://server/app/" };

const doc = (grid) => new Uint8Array(deflateSync(Buffer.from(JSON.stringify({ grid, base: {}, patches: [] }))));

test("the most complete frames held: the whole set, else its nearest part, else the key", () => {
  FRAMES.clear();
  assert.equal(bestKey("a"), "a");
  FRAMES.set("a-near", { grid: [1] });
  assert.equal(bestKey("a"), "a-near");
  FRAMES.set("a", { grid: [1, 2] });
  assert.equal(bestKey("a"), "a");
  assert.equal(bestKey("a-near"), "a");
  FRAMES.set("b-near", null); // being inflated: not held yet
  assert.equal(bestKey("b"), "b");
});

// a file not there yet: an empty one (webui/frames_fetch.py _reserve), or a 404 (swept, or another
// server's address)
const EMPTY = () => ({ ok: true, status: 200, arrayBuffer: async () => new ArrayBuffer(0) });
const MISSING = () => ({ ok: false, status: 404 });

test("a waiting set's files are asked for one at a time, its nearest part first, until both are there", async () => {
  await waitingSet(EMPTY);
});

test("the same when a file not there yet is a 404", async () => {
  await waitingSet(MISSING);
});

async function waitingSet(notThere) {
  FRAMES.clear();
  const asked = [];
  let open = 0;
  let most = 0;
  const there = new Set();
  globalThis.fetch = async (url) => {
    open++;
    most = Math.max(most, open);
    asked.push(String(url).split("/").pop());
    await new Promise((r) => setTimeout(r, 5));
    open--;
    const name = String(url).split("/").pop();
    if (!there.has(name)) return notThere();
    return { ok: true, arrayBuffer: async () => doc(name === "near.bin" ? [2] : [1, 2, 3]).buffer };
  };
  const chart = { __dpviz: { sliders: { "λ": { frames: "k" } } } };
  CHARTS.add(chart);
  fetchFrames("k", { whole: "app/static/frames/whole.bin", near: "app/static/frames/near.bin" });
  fetchFrames("k", { whole: "app/static/frames/whole.bin", near: "app/static/frames/near.bin" }); // again: one set
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(FRAMES.get("k"), undefined);
  there.add("near.bin");
  await waitFor(() => FRAMES.get("k-near"));
  assert.deepEqual(FRAMES.get("k-near").grid, [2]);
  assert.equal(chart.__dpviz.sliders["λ"].frames, "k-near"); // the chart reads the nearest part
  there.add("whole.bin");
  await waitFor(() => FRAMES.get("k"));
  assert.equal(chart.__dpviz.sliders["λ"].frames, "k");
  assert.equal(most, 1, "more than one request at a time");
  const afterNear = asked.slice(asked.lastIndexOf("near.bin") + 1);
  assert.ok(afterNear.length && afterNear.every((n) => n === "whole.bin"), `asked ${asked}`);
  const count = asked.length;
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(asked.length, count, "still asking once the whole set is there");
  CHARTS.delete(chart);
}

async function waitFor(check, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("not within the time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
