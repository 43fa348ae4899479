import { FRAMES } from "./state.js";
import { frameAt } from "./frames.js";

// a panel drawn as HTML: the server's HTML, and the HTML of a slider's position while it moves
export function htmlAt(el, label, index) {
  const s = el.__dpviz.sliders[label];
  if (!s || !current(el, label)) return null;
  const value = s.options[index];
  const doc = FRAMES.get(s.frames);
  const i = doc ? doc.index.get(value) : undefined;
  if (i !== undefined) return doc.html[i];
  return value === s.at ? el.__dpviz.html : null;
}

// where each slider is (label -> option index), as last seen; before its first move, where the
// server drew the charts that follow it
export const AT = new Map();
export function known(label) {
  if (AT.has(label)) return AT.get(label);
  for (const el of [...CHARTS, ...TEXTS]) {
    const s = el.__dpviz.sliders[label];
    if (s) return s.options.indexOf(s.at);
  }
  return undefined;
}

// whether the frames of an element along `label` hold for where the other sliders are: each
// other slider it follows still shows the value the server drew it at (else they are frames of
// another setting, until the server's answer brings this setting's); with `self`, every slider,
// the one of `label` too (whether a server's drawing is of where the sliders are now)
export function current(el, label, self = false) {
  return movedAway(el, label, self).length === 0;
}

// the labels of the sliders an element follows, other than `label` (with `self`, `label` too), that
// stand elsewhere than where the server drew it
function movedAway(el, label, self = false) {
  return Object.entries(el.__dpviz.sliders)
    .filter(([other, s]) => (self || other !== label) && AT.has(other) && s.options[AT.get(other)] !== s.at)
    .map(([other]) => other);
}

// The key of the frames an element reads along `label` for where its other sliders are now: its
// own set while they stand where the server drew it (current); while one of them stands one key
// step away, the set of that setting the server named beside it (the slider's `ahead`: [[the other
// slider's value, the set's key, its file's address], ...] per other slider's label,
// webui/live_frames.py ahead_for_browser), which the tab fetches at that step (aheadAt), so the
// other slider's moves are drawn from frames before the step's own run has answered; else null.
export function setOf(el, label) {
  const s = el.__dpviz.sliders[label];
  if (!s) return null;
  const moved = movedAway(el, label);
  if (!moved.length) return s.frames;
  const step = moved.length === 1 && aheadAt(el, label, moved[0]); // (two others moved: no set named for that)
  return step ? step[1] : null;
}
window.__dpvizSetOf = setOf; // for the benchmarks and browser tests

// the entry of slider `label`'s `ahead` for slider `other` where it stands now ([value, key, url]), or null
export function aheadAt(el, label, other) {
  const s = el.__dpviz.sliders[label];
  const o = el.__dpviz.sliders[other];
  const steps = s && o && s.ahead && s.ahead[other];
  if (!steps || !AT.has(other)) return null;
  const value = o.options[AT.get(other)];
  return steps.find((step) => step[0] === value) || null;
}

// the figure a chart shows at a slider's option index (null: nothing to draw from here)
export function figureAt(gd, label, index) {
  const s = gd.__dpviz.sliders[label];
  const set = s && setOf(gd, label);
  if (!set) return null;
  const frame = frameOf(FRAMES.get(set), s.options[index]);
  if (frame) return frame;
  if (set !== s.frames || s.options[index] !== s.at) return null;
  return gd.__dpviz.figure || refFigure(gd.__dpviz.ref);
}

// the frame a set of frames (or none) holds at a slider's value, or null. Looked up by the value,
// not by an option's index: a nearest part holds the 16 positions nearest the slider, and a link's
// value off the grid is an option with no frame
export function frameOf(doc, value) {
  const i = doc ? doc.index.get(value) : undefined;
  return i === undefined ? null : frameAt(doc, i);
}

// the figure a server's reference stands for (a frame along another slider), if the browser holds it
export function refFigure(ref) {
  return ref ? frameOf(FRAMES.get(ref.frames), ref.value) : null;
}
