import { CHARTS, FRAMES, TEXTS } from "./state.js";
import { inflateFrames } from "./frames.js";
import { planSoon } from "./shots.js";

// Frames fetched by the tab itself (webui/frames_fetch.py): a "P" element (frames still being
// computed) says where the server will put them, and their nearest part, once they are computed;
// the tab asks for those files, plain HTTP requests that run nothing on the server, instead of
// waiting for the page's next run (asked for every 2 s). One request at a time for the whole tab,
// taking the waiting sets in turn (a nearest part before its whole set), every 150 ms at first and
// less often as time passes (x1.25 a request, at most every 0.6 s: with three sets waiting, each is
// asked for every 1.8 s), anew for each new set asked for and each file received (a set's nearest
// part: its whole set comes a few seconds later); none while the tab is hidden; a set first asked
// for a minute ago is given up (the page's 2-s asks still bring it).

export const NEAR_SUFFIX = "-near"; // webui/frames_store.py NEAR_SUFFIX
const FIRST_MS = 150;
const LAST_MS = 600; // (at most every 2 s, each of three waiting sets was asked for every 6 s)
const GROWTH = 1.25;
const GIVE_UP_MS = 60000;
const FETCHING = (window.__dpvizFetching = window.__dpvizFetching || {
  sets: new Map(), // key -> {urls, since, turn}
  wait: FIRST_MS,
  timer: null,
  busy: false,
  fetched: [], // the frames received as files, by key (the browser tests read it)
});

// the most complete frames the tab holds for `key` (a set's key, or its nearest part's): the
// whole set, else its nearest part, else `key` itself
export function bestKey(key) {
  const whole = key.endsWith(NEAR_SUFFIX) ? key.slice(0, -NEAR_SUFFIX.length) : key;
  if (FRAMES.get(whole)) return whole;
  if (FRAMES.get(whole + NEAR_SUFFIX)) return whole + NEAR_SUFFIX;
  return key;
}

// each slider's entry (label -> {frames, ...}) reads the most complete frames the tab holds
export function upgrade(sliders) {
  for (const s of Object.values(sliders || {})) s.frames = bestKey(s.frames);
}

// every chart and text that follows a slider reads the most complete frames the tab holds
export function upgradeAll() {
  for (const el of [...CHARTS, ...TEXTS]) upgrade(el.__dpviz && el.__dpviz.sliders);
}

// frames `name` received (compressed, from a frames element or a file): inflated once and kept,
// the charts told; false if the tab holds them already (or is inflating them), or they are not
// frames (then nothing is kept, and the page's own asks bring them)
export async function holdBody(name, body) {
  if (FRAMES.has(name)) return false;
  FRAMES.set(name, null); // being inflated (a frames element or file of the same key waits)
  try {
    FRAMES.set(name, await inflateFrames(body));
  } catch (err) {
    FRAMES.delete(name);
    return false;
  }
  upgradeAll();
  window.dispatchEvent(new CustomEvent("dpviz-frames", { detail: name }));
  planSoon();
  return true;
}

// the frames `key` (a set's key) are being computed: fetch them from `urls` ({whole, near}) once
// they are there
export function fetchFrames(key, urls) {
  if (!urls || !urls.whole || FRAMES.get(key)) return;
  if (!FETCHING.sets.has(key)) {
    FETCHING.sets.set(key, { urls, since: performance.now(), turn: 0 });
    FETCHING.wait = FIRST_MS; // a new set: ask soon again
    clearTimeout(FETCHING.timer);
    FETCHING.timer = null;
  }
  planFetch();
}

function planFetch() {
  if (FETCHING.timer !== null || FETCHING.busy || !FETCHING.sets.size) return;
  FETCHING.timer = setTimeout(fetchOne, FETCHING.wait);
  FETCHING.wait = Math.min(LAST_MS, FETCHING.wait * GROWTH);
}

// the next file to ask for: [name in FRAMES, url, the set's key], taking the sets in turn
function nextFile() {
  const now = performance.now();
  for (const [key, s] of [...FETCHING.sets]) {
    if (FRAMES.get(key) || now - s.since > GIVE_UP_MS) FETCHING.sets.delete(key);
  }
  const sets = [...FETCHING.sets];
  if (!sets.length) return null;
  FETCHING.turn = ((FETCHING.turn || 0) + 1) % sets.length;
  const [key, s] = sets[FETCHING.turn];
  const near = key + NEAR_SUFFIX;
  if (s.urls.near && !FRAMES.has(near) && s.turn++ % 2 === 0) return [near, s.urls.near, key];
  return [key, s.urls.whole, key];
}

async function fetchOne() {
  FETCHING.timer = null;
  const file = document.hidden ? null : nextFile();
  if (file) {
    const [name, url] = file;
    FETCHING.busy = true;
    try {
      const response = await fetch(new URL(url, document.baseURI), { cache: "no-store" });
      if (response.ok && !FRAMES.has(name) && (await holdBody(name, new Uint8Array(await response.arrayBuffer())))) {
        FETCHING.fetched.push(name);
        if (FETCHING.fetched.length > 100) FETCHING.fetched.shift();
        FETCHING.wait = FIRST_MS; // a nearest part came: its whole set, or another set's, soon
      }
    } catch (err) {
      // a network error or a bad file: the page's own asks bring the frames
    } finally {
      FETCHING.busy = false;
    }
  }
  planFetch();
}
