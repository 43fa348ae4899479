// A page's first drawings take turns, one chart a task, the charts in the window first.
//
// On a page's first view every chart's figure arrives before plotly.js has loaded, and each one's
// drawing waited on the same promise: once plotly.js came, every chart was drawn in one go (the
// promise's callbacks run back to back, with no paint between them), so the chart in view was on
// screen only once the last chart below it was drawn (0.3-1.5 s of Plotly a page here). Now a
// chart's first drawing waits its turn: the charts in the window go first, then the others in the
// order they came, and each turn ends a task after the drawing, so that the browser can paint it.
// A chart drawn before (its redraws after a move, from frames or from the server) does not wait.

const FIRST = (window.__dpvizFirstDraws = window.__dpvizFirstDraws || { queue: [], busy: false });

// `work` (a drawing of `gd`, a function returning a promise) done now if `gd` has been drawn
// before, else in its turn; the promise settles as `work`'s does
export function firstTurn(gd, work, inView) {
  if (gd._fullLayout) return work();
  return new Promise((resolve, reject) => {
    FIRST.queue.push({ gd, inView, run: () => Promise.resolve().then(work).then(resolve, reject) });
    // chosen once the charts that plotly.js's arrival lets go at the same moment are all queued
    queueMicrotask(nextTurn);
  });
}

function nextTurn() {
  if (FIRST.busy || !FIRST.queue.length) return;
  let i = FIRST.queue.findIndex((e) => e.gd.isConnected && e.inView(e.gd));
  if (i < 0) i = 0;
  const [turn] = FIRST.queue.splice(i, 1);
  FIRST.busy = true;
  const done = () => setTimeout(() => {
    FIRST.busy = false;
    nextTurn();
  }, 0);
  turn.run().then(done, done);
}
