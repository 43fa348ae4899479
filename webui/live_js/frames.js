// A frames element's data: "F", the key, a newline, then the zlib-compressed JSON of one chart's
// frames along one slider (dpviz.frames.Frames.encoded), or nothing after the key when the tab
// holds them already.
export function framesMessage(u8) {
  const nl = u8.indexOf(10);
  const key = new TextDecoder().decode(u8.subarray(1, nl));
  return { key, body: nl + 1 < u8.length ? u8.subarray(nl + 1) : null };
}

// the frames document inflated (DecompressionStream), with its positions indexed by value
export async function inflateFrames(body) {
  const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream("deflate"));
  const doc = JSON.parse(await new Response(stream).text());
  doc.index = new Map(doc.grid.map((v, i) => [v, i]));
  return doc;
}

// Typed arrays ({dtype, bdata}: dpviz.frames.typed_arrays, Plotly's own JSON form) decoded into
// JavaScript typed arrays once, in place. Plotly decodes such a spec itself, but anew on every
// Plotly.react, so each draw saw every trace's data as new and drew the whole chart again (an
// unchanged chart cost ADePT's ε chart 19 ms a draw); decoded once, a frame's unchanged traces
// keep their arrays from frame to frame and Plotly leaves them be.
const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array, u2: Uint16Array, i1: Int8Array, u1: Uint8Array };
export function typedArray(spec) {
  const kind = TYPED[String(spec.dtype).replace(/^[<>|=]/, "")];
  if (!kind || spec.shape !== undefined || typeof spec.bdata !== "string") return spec; // 2-D and others: Plotly's
  const text = atob(spec.bdata);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return new kind(bytes.buffer, 0, bytes.length / kind.BYTES_PER_ELEMENT);
}
function decodeTyped(obj, depth = 0) {
  if (!obj || typeof obj !== "object" || depth > 3) return obj;
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v)) {
      if ("bdata" in v && "dtype" in v) obj[k] = typedArray(v);
      else decodeTyped(v, depth + 1);
    }
  }
  return obj;
}
export function decodedData(data) {
  if (Array.isArray(data) && !data.__decoded) {
    data.forEach((t) => decodeTyped(t));
    Object.defineProperty(data, "__decoded", { value: true });
  }
  return data;
}

// the frame at position i: the base with that position's patch (dpviz.frames.apply)
export function frameAt(doc, i) {
  doc.made = doc.made || new Map(); // the same object for the same frame: a chart showing it is left alone
  if (doc.made.has(i)) return doc.made.get(i);
  const change = doc.patches[i];
  decodedData(doc.base.data);
  if (change.data) decodedData(change.data);
  for (const keys of Object.values(change.traces || {})) decodeTyped(keys);
  const data = (change.data || doc.base.data).map((t) => Object.assign({}, t));
  if (!change.data) {
    for (const [k, keys] of Object.entries(change.traces || {})) Object.assign(data[+k], keys);
    for (const [k, keys] of Object.entries(change.drop || {})) for (const key of keys) delete data[+k][key];
  }
  const layout = Object.assign({}, doc.base.layout, change.layout || {});
  for (const key of change.layout_drop || []) delete layout[key];
  const figure = { data, layout };
  doc.made.set(i, figure);
  return figure;
}
