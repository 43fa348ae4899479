// Frames decoding (webui/live_js/frames.js) against the server's own encoding: the cases are made
// by dpviz.frames (tests/js/make_cases.py), and every frame decoded here must hold the very
// numbers dpviz.frames.decode reads back, bit for bit.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { frameAt, framesMessage, inflateFrames, typedArray } from "../../webui/live_js/frames.js";

const CASES = JSON.parse(readFileSync(new URL("./cases/frames.json", import.meta.url), "utf8"));

// a decoded frame as the cases hold it: typed arrays as lists, NaN and -0 spelled out
function plain(x) {
  if (ArrayBuffer.isView(x)) return Array.from(x, number);
  if (Array.isArray(x)) return x.map(plain);
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return number(x);
}
function number(v) {
  if (typeof v !== "number") return v;
  if (Number.isNaN(v)) return "NaN";
  return Object.is(v, -0) ? "-0" : v;
}

for (const c of CASES) {
  test(`${c.name}: the message's key, grid and every frame`, async () => {
    const u8 = Uint8Array.from(Buffer.from(c.message, "base64"));
    const { key, body } = framesMessage(u8);
    assert.equal(key, c.key);
    const doc = await inflateFrames(body);
    assert.deepEqual(doc.grid, c.grid);
    assert.deepEqual([...doc.index.entries()], c.grid.map((v, i) => [v, i]));
    c.frames.forEach((expected, i) => assert.deepEqual(plain(frameAt(doc, i)), expected, `frame ${i}`));
  });

  test(`${c.name}: a frame is made once and its traces' arrays shared with the base`, async () => {
    const doc = await inflateFrames(framesMessage(Uint8Array.from(Buffer.from(c.message, "base64"))).body);
    assert.equal(frameAt(doc, 1), frameAt(doc, 1)); // the same object: a chart showing it is left alone
    // trace b's x is unchanged in frame 1: the same typed array as the base's, so Plotly skips it
    assert.equal(frameAt(doc, 1).data[1].x, frameAt(doc, 0).data[1].x);
    assert.notEqual(frameAt(doc, 1).data[0], frameAt(doc, 0).data[0]);
  });
}

test("a key sent alone (frames the tab holds) has no body", () => {
  const { key, body } = framesMessage(new TextEncoder().encode("Fsome-key\n"));
  assert.equal(key, "some-key");
  assert.equal(body, null);
});

test("typed arrays: float64 and int32 decoded; 2-D and unknown types left to Plotly", () => {
  const f8 = typedArray({ dtype: "f8", bdata: Buffer.from(new Float64Array([0.1, -2.5]).buffer).toString("base64") });
  assert.deepEqual(Array.from(f8), [0.1, -2.5]);
  const i4 = typedArray({ dtype: "<i4", bdata: Buffer.from(new Int32Array([7, -9]).buffer).toString("base64") });
  assert.deepEqual(Array.from(i4), [7, -9]);
  const twoD = { dtype: "f8", bdata: "AAAAAAAA8D8=", shape: "1, 1" };
  assert.equal(typedArray(twoD), twoD);
  const odd = { dtype: "c16", bdata: "" };
  assert.equal(typedArray(odd), odd);
});
