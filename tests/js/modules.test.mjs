// Every module of the chart script loads on its own as an ES module: each name it imports is
// exported where it says (a missing export fails the link here; webui/live_script.py's test checks
// the other way, that each module imports what it uses of the others).
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

const FOLDER = new URL("../../webui/live_js/", import.meta.url);

for (const file of readdirSync(FOLDER).filter((f) => f.endsWith(".js"))) {
  test(`${file} loads and links`, async () => {
    const mod = await import(new URL(file, FOLDER));
    assert.ok(Object.keys(mod).length > 0, `${file} exports nothing`);
  });
}

test("the chart element's entry point is chart.js's default export", async () => {
  const chart = await import(new URL("chart.js", FOLDER));
  assert.equal(typeof chart.default, "function");
});
