// The words a chart's description uses for numbers and runs (webui/live_js/describe.js).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { fmt, trend } from "../../webui/live_js/describe.js";

test("numbers: four significant digits, exponents past 1e5 and under 1e-3, rounding noise as 0", () => {
  assert.equal(fmt(0.123456), "0.1235");
  assert.equal(fmt(123456), "1.23e+5");
  assert.equal(fmt(0.0001234), "1.23e-4");
  assert.equal(fmt(1e-13), "0");
  assert.equal(fmt(-2.5), "-2.5");
  assert.equal(fmt("SUE"), "SUE");
});

test("a run of values rises, falls, goes, or is constant; ties do not break a rise", () => {
  assert.equal(trend([1, 2, 2, 3]), "rises");
  assert.equal(trend([3, 2, 2, 1]), "falls");
  assert.equal(trend([1, 3, 2]), "goes");
  assert.equal(trend([2, 2, 2]), "constant at");
  assert.equal(trend([5]), "constant at");
});
