import { CHARTS, FRAMES, TEXTS } from "./state.js";
import { inflateFrames } from "./frames.js";
import { SHOTS, planForFrames } from "./shots.js";
import { inWindow } from "./chart.js";

// Frames fetched by the tab itself (webui/frames_fetch.py): a "P" element (frames still being
// computed) says where the server will put them, and their nearest part, once they are computed;
// the tab asks for those files, plain HTTP requests that run nothing on the server, instead of
// waiting for the page's next run (asked for every 2 s). One turn at a time for the whole tab,
// every 150 ms for the first 2 s after a new set is asked for or a file received, then less often
// (x1.25 a turn, at most every 0.6 s); none while the tab is hidden; a set first asked for a minute
// ago is given up (the page's 2-s asks still bring it). A turn reads the session's news file (the
// names of the files published for the sets it asked for, webui/frames_fetch.py) and fetches side
// by side every waiting file it names; every fourth turn, or with no news file, it asks for one
// waiting file itself, taking the sets in turn (a nearest part before its whole set): a set another
// server process computed is in no news. (Asking for each file in turn alone found a HoHo chart's
// nearest part some 0.8 s after it was written, with five sets waiting.)

export const NEAR_SUFFIX = "-near"; // webui/frames_store.py NEAR_SUFFIX
const FIRST_MS = 150;
const QUICK_MS = 2000; // turns every FIRST_MS for this long after a new set or a file received
const LAST_MS = 600; // (at most every 2 s, each of three waiting sets was asked for every 6 s)
const GROWTH = 1.25;
const GIVE_UP_MS = 60000;
const OWN_EVERY = 4; // every fourth turn asks for a file itself, whatever the news says
const FETCHING = (window.__dpvizFetching = window.__dpvizFetching || {
  sets: new Map(), // key -> {urls, since, turn}
  wait: FIRST_MS,
  lively: 0, // when a set was last asked for or a file received
  news: null, // the session's news file, once a "P" element named it
  turns: 0,
  timer: null,
  busy: false,
  fetched: [], // the frames received as files, by key (the browser tests read it)
  byNews: [], // those of them a news file named
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
  let doc;
  try {
    doc = await inflateFrames(body);
  } catch (err) {
    FRAMES.delete(name);
    return false;
  }
  held(name, doc);
  return true;
}

// frames `name` inflated: kept, the charts told
function held(name, doc) {
  FRAMES.set(name, doc);
  upgradeAll();
  window.dispatchEvent(new CustomEvent("dpviz-frames", { detail: name }));
  planForFrames();
}

// the frames `key` (a set's key) are being computed: fetch them from `urls` ({whole, near}) once
// they are there
export function fetchFrames(key, urls) {
  if (!urls || !urls.whole || FRAMES.get(key)) return;
  if (urls.news) FETCHING.news = urls.news;
  if (!FETCHING.sets.has(key)) {
    FETCHING.sets.set(key, { urls, since: performance.now(), turn: 0 });
    lively(); // a new set: ask soon again
    clearTimeout(FETCHING.timer);
    FETCHING.timer = null;
  }
  planFetch();
}

// a set one key step of another slider away (positions.js setOf), at that step: asked for at
// once, not at the next turn, and, if its file is not there yet (its set still being computed),
// in the turns that follow like any waiting set
export async function fetchAhead(key, url) {
  if (takeAhead(key) || FRAMES.has(key) || FETCHING.sets.has(key) || AHEAD_ASKED.has(key)) return;
  AHEAD_ASKED.add(key);
  try {
    if (!(await fetchFile(key, url)) && !FRAMES.has(key)) fetchFrames(key, { whole: url });
  } finally {
    AHEAD_ASKED.delete(key);
  }
}
const AHEAD_ASKED = new Set(); // being asked for by fetchAhead

// On a local server (the slider's `aheadIdle`, webui/figure_card.py), the sets one key step ahead are
// fetched and inflated before any step, in the tab's quiet moments: four sets at a time, the charts in
// view first, none while the page runs, before every chart's first drawing, while shots wait to be
// made (ADePT's ε after a step of n held shots of 17 of its 97 positions as a drag began with the
// sets fetched beside them, 22-27 without), during a drag, or within a second of a key press
// (SHOTS.quiet, as for a shot). At the step
// such a set is the tab's at once (takeAhead): fetched at the step, a set was held 0.2-0.8 s after
// the key on the 2-core machine, its file in within 0.1 s and its inflating waiting behind the step's
// own drawings. They are kept apart from the tab's frames, and only those the charts name now
// (a new setting names others): at most four sets a chart. Not on a hosted demo, where thirty
// students' pauses would fetch four files a chart each, of which one step uses at most one.
const AHEAD_DOCS = (window.__dpvizAheadDocs = window.__dpvizAheadDocs || new Map()); // key -> frames
const AHEAD_IDLE = (window.__dpvizAheadIdle = window.__dpvizAheadIdle || { timer: null, busy: false, missed: new Map() });
export const AHEAD_WAIT = { first: 300, next: 60, again: 300, missing: 2000 }; // ms (an object: Node's tests shorten them)
const AHEAD_TRIES = 4; // a file not there this often (a set still computed) is left to the step
const AHEAD_TURN = 4; // files asked for side by side in one turn (a chart's four sets)

// the set `key`, fetched ahead in idle time, made the tab's frames now; false if it was not
function takeAhead(key) {
  const doc = AHEAD_DOCS.get(key);
  if (!doc) return false;
  AHEAD_DOCS.delete(key);
  if (!FRAMES.has(key)) held(key, doc);
  return true;
}

// the sets one step ahead the charts name now, [key, url] each, the charts in view first
function aheadWanted() {
  const charts = [...CHARTS].filter((gd) => gd.isConnected && gd.__dpviz);
  const order = [...charts.filter((gd) => inWindow(gd)), ...charts.filter((gd) => !inWindow(gd))];
  const wanted = new Map();
  for (const gd of order) {
    for (const s of Object.values(gd.__dpviz.sliders || {})) {
      if (!s.aheadIdle || !s.ahead) continue;
      for (const steps of Object.values(s.ahead)) for (const [, key, url] of steps) if (!wanted.has(key)) wanted.set(key, url);
    }
  }
  return wanted;
}

// a chart's state came: the sets ahead it names are fetched in the quiet moments after it
export function planAheadIdle(ms = AHEAD_WAIT.first) {
  clearTimeout(AHEAD_IDLE.timer);
  AHEAD_IDLE.timer = setTimeout(aheadTurn, ms);
}

async function aheadTurn() {
  AHEAD_IDLE.timer = null;
  if (AHEAD_IDLE.busy) return;
  const wanted = aheadWanted();
  for (const key of [...AHEAD_DOCS.keys()]) if (!wanted.has(key)) AHEAD_DOCS.delete(key); // another setting's
  const next = [...wanted]
    .filter(([key]) => !FRAMES.has(key) && !AHEAD_DOCS.has(key) && (AHEAD_IDLE.missed.get(key) || 0) < AHEAD_TRIES)
    .slice(0, AHEAD_TURN);
  if (!next.length) return;
  const shooting = SHOTS.busy || SHOTS.queue.length > 0; // (shots first: a drag's states are theirs)
  // (a page's first drawings first: fetched 0.3 s after the first chart's state came, HoHo's four
  // sets were inflated before plotly.js had drawn anything, 0.4-0.6 s of the first view)
  const undrawn = [...CHARTS].some((gd) => gd.isConnected && !gd._fullLayout);
  // (not held back while the page runs: shots.js pageRuns)
  if (document.hidden || SHOTS.dragging || shooting || undrawn || performance.now() < (SHOTS.quiet || 0)) {
    return void planAheadIdle(AHEAD_WAIT.again);
  }
  AHEAD_IDLE.busy = true;
  const missed = (key) => AHEAD_IDLE.missed.set(key, (AHEAD_IDLE.missed.get(key) || 0) + 1); // (not computed yet)
  const one = async ([key, url]) => {
    try {
      const response = await fetch(new URL(url, document.baseURI), { cache: "no-store" });
      const body = await bytesOf(response);
      if (!body) return void missed(key);
      const doc = await inflateFrames(body);
      if (!FRAMES.has(key)) AHEAD_DOCS.set(key, doc);
      return true;
    } catch (err) {
      missed(key);
    }
  };
  let got = [];
  try {
    got = await Promise.all(next.map(one));
  } finally {
    AHEAD_IDLE.busy = false;
  }
  planAheadIdle(got.every(Boolean) ? AHEAD_WAIT.next : AHEAD_WAIT.missing);
}

function lively() {
  FETCHING.wait = FIRST_MS;
  FETCHING.lively = performance.now();
}

function planFetch() {
  if (FETCHING.timer !== null || FETCHING.busy || !FETCHING.sets.size) return;
  FETCHING.timer = setTimeout(fetchTurn, FETCHING.wait);
  if (performance.now() - FETCHING.lively > QUICK_MS) FETCHING.wait = Math.min(LAST_MS, FETCHING.wait * GROWTH);
}

function forgetDone() {
  const now = performance.now();
  for (const [key, s] of [...FETCHING.sets]) {
    if (FRAMES.get(key) || now - s.since > GIVE_UP_MS) FETCHING.sets.delete(key);
  }
}

// the next file to ask for: [name in FRAMES, url, the set's key], taking the sets in turn (those
// done or given up already forgotten: fetchTurn)
function nextFile() {
  const sets = [...FETCHING.sets];
  if (!sets.length) return null;
  FETCHING.turn = ((FETCHING.turn || 0) + 1) % sets.length;
  const [key, s] = sets[FETCHING.turn];
  const near = key + NEAR_SUFFIX;
  if (s.urls.near && !FRAMES.has(near) && s.turn++ % 2 === 0) return [near, s.urls.near, key];
  return [key, s.urls.whole, key];
}

const fileName = (url) => url.slice(url.lastIndexOf("/") + 1);

// the waiting files the news names: [name in FRAMES, url] each
function newsFiles(names) {
  const listed = new Set(names);
  const files = [];
  for (const [key, s] of FETCHING.sets) {
    const near = key + NEAR_SUFFIX;
    if (listed.has(fileName(s.urls.whole))) files.push([key, s.urls.whole]);
    else if (s.urls.near && !FRAMES.has(near) && listed.has(fileName(s.urls.near))) files.push([near, s.urls.near]);
  }
  return files;
}

// one file fetched and held; true if it was new to the tab
// a frames file's bytes, or null while its frames are not there: a 404 (swept, or another server's
// address) or the empty file that stands for them until they are computed (webui/frames_fetch.py
// _reserve)
async function bytesOf(response) {
  if (!response.ok) return null;
  const body = new Uint8Array(await response.arrayBuffer());
  return body.length ? body : null;
}

async function fetchFile(name, url) {
  try {
    const response = await fetch(new URL(url, document.baseURI), { cache: "no-store" });
    const body = FRAMES.has(name) ? null : await bytesOf(response);
    if (body && (await holdBody(name, body))) {
      FETCHING.fetched.push(name);
      if (FETCHING.fetched.length > 100) FETCHING.fetched.shift();
      lively(); // a nearest part came: its whole set, or another set's, soon
      return true;
    }
  } catch (err) {
    // a network error or a bad file: the page's own asks bring the frames
  }
  return false;
}

async function fetchTurn() {
  FETCHING.timer = null;
  if (!document.hidden) {
    FETCHING.busy = true;
    try {
      forgetDone();
      const own = !FETCHING.news || FETCHING.turns++ % OWN_EVERY === OWN_EVERY - 1;
      if (own) {
        const file = nextFile();
        if (file) await fetchFile(file[0], file[1]);
      } else if (FETCHING.sets.size) {
        const response = await fetch(new URL(FETCHING.news, document.baseURI), { cache: "no-store" });
        const names = response.ok ? await response.json() : [];
        const files = newsFiles(Array.isArray(names) ? names : []);
        const got = await Promise.all(files.map(([name, url]) => fetchFile(name, url)));
        files.forEach(([name], i) => got[i] && FETCHING.byNews.push(name));
        if (FETCHING.byNews.length > 100) FETCHING.byNews.splice(0, FETCHING.byNews.length - 100);
      }
    } catch (err) {
      // no news yet (a 404), a network error: the next turn asks again
    } finally {
      FETCHING.busy = false;
    }
  }
  planFetch();
}
