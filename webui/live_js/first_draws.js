// A page's first drawings take turns, one chart a task, the charts in the window first.
//
// On a page's first view every chart's figure arrives before plotly.js has loaded, and each one's
// drawing waited on the same promise: once plotly.js came, every chart was drawn in one go (the
// promise's callbacks run back to back, with no paint between them), so the chart in view was on
// screen only once the last chart below it was drawn (0.3-1.5 s of Plotly a page here). Now a
// chart's first drawing waits its turn: the charts in the window go first, then the others in the
// order they came, and each turn ends a task after the drawing, so that the browser can paint it.
// A chart drawn before (its redraws after a move, from frames or from the server) does not wait.
//
// The charts out of the window also wait while their caller says so (`waits`: chart.js, while the
// page's run goes on and while the reader moves a slider): drawn during the run, they held the
// browser for 1-2 s of Plotly while the rest of the run's elements, and its end, queued behind
// them (Metric DP's page showed its run's end 1.5 s after its first chart, Partial's 2-2.5 s).
// They are drawn once the caller lets them, or as soon as they come into the window.

const FIRST = (window.__dpvizFirstDraws = window.__dpvizFirstDraws || { queue: [], busy: false, timer: null });
const WAIT_MS = 100; // how often the charts out of the window look again whether they still wait

// `work` (a drawing of `gd`, a function returning a promise) done now if `gd` has been drawn
// before, else in its turn; the promise settles as `work`'s does. `waits()`: whether a chart out
// of the window waits now
export function firstTurn(gd, work, inView, waits = () => false) {
  if (gd._fullLayout) return work();
  return new Promise((resolve, reject) => {
    FIRST.queue.push({ gd, inView, waits, run: () => Promise.resolve().then(work).then(resolve, reject) });
    // chosen once the charts that plotly.js's arrival lets go at the same moment are all queued
    queueMicrotask(nextTurn);
  });
}

function nextTurn() {
  if (FIRST.busy || !FIRST.queue.length) return;
  let i = FIRST.queue.findIndex((e) => e.gd.isConnected && e.inView(e.gd));
  if (i < 0) {
    if (FIRST.queue[0].waits()) return void lookAgain();
    i = 0;
  }
  const [turn] = FIRST.queue.splice(i, 1);
  FIRST.busy = true;
  const done = () => setTimeout(() => {
    FIRST.busy = false;
    nextTurn();
  }, 0);
  turn.run().then(done, done);
}

function lookAgain() {
  if (FIRST.timer) return;
  FIRST.timer = setTimeout(() => {
    FIRST.timer = null;
    nextTurn();
  }, WAIT_MS);
}
