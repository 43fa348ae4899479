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
  for (const [other, s] of Object.entries(el.__dpviz.sliders)) {
    if ((self || other !== label) && AT.has(other) && s.options[AT.get(other)] !== s.at) return false;
  }
  return true;
}

// the figure a chart shows at a slider's option index (null: nothing to draw from here)
export function figureAt(gd, label, index) {
  const s = gd.__dpviz.sliders[label];
  if (!s || !current(gd, label)) return null;
  const frame = frameOf(FRAMES.get(s.frames), s.options[index]);
  if (frame) return frame;
  if (s.options[index] !== s.at) return null;
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
