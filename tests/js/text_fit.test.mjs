// Text fitting (webui/live_js/text_fit.js) against dpviz.text_fit, the same rules for exported
// images: the cases are fit_layout's answers (tests/js/make_cases.py), both sides measuring a text
// at 0.6 em a character. The browser's own additions are left out of the comparison: tick labels
// let run past the edge (ticklabeloverflow) and the height, which on a page is the element's.
import "./dom_stub.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fitLayout, useMeasure, wrapText } from "../../webui/live_js/text_fit.js";

const CASES = JSON.parse(readFileSync(new URL("./cases/text_fit.json", import.meta.url), "utf8"));
useMeasure((text, px) => 0.6 * px * text.length);

function shared(layout) {
  const out = JSON.parse(JSON.stringify(layout));
  delete out.height;
  for (const [k, v] of Object.entries(out)) if (/^[xy]axis\d*$/.test(k) && v) delete v.ticklabeloverflow;
  return out;
}

for (const c of CASES) {
  test(`fitLayout agrees with dpviz.text_fit: ${c.name} (${c.width} px)`, () => {
    const got = fitLayout(c.layout, c.width, c.traces || [], c.height || undefined);
    assert.deepEqual(shared(got), shared(c.fitted));
  });
}

test("wrapText keeps every word and breaks only between words", () => {
  const text = "one two three four five six seven eight nine ten";
  const out = wrapText(text, 10, 60, "sans-serif");
  assert.equal(out.split("<br>").join(" "), text);
  for (const line of out.split("<br>")) assert.ok(0.6 * 10 * line.length <= 60 || !line.includes(" "), line);
});

test("a line that is one <sup> tag wraps inside the tag, at 0.7 of the size", () => {
  const out = wrapText("Main<br><sup>aaaa bbbb cccc dddd eeee</sup>", 20, 60, "sans-serif").split("<br>");
  assert.equal(out[0], "Main");
  assert.ok(out.length > 2);
  for (const line of out.slice(1)) assert.match(line, /^<sup>[a-e ]+<\/sup>$/);
});
