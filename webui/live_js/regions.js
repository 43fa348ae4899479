// Scrolling boxes a keyboard can reach. A formula wider than its column (KaTeX's display box,
// which Streamlit lets scroll sideways: the partial-sensitivity page's derivatives, hundreds of
// terms for some typed queries) could be scrolled with a mouse alone: axe-core's
// scrollable-region-focusable, WCAG 2.1.1. Such a box gets tabindex 0, the role "region" and a
// name, so that Tab reaches it and the arrow keys scroll it; a formula that fits gets no tab
// stop. Each display box is watched for a change of size (its column's width, KaTeX's fonts
// arriving; a box the page removed is no longer watched), and the page for new display boxes: only
// the HTML nodes added are looked into (KaTeX's box is never SVG), so that a chart redrawn at frame
// rate during a drag, its nodes SVG, costs a check of each node's kind.

export const SCROLLERS = ".katex-display";
export const REGION_LABEL = "formula, wider than its column: scroll it sideways with the arrow keys";

// Whether a box's content is wider than the box (a pixel of rounding allowed).
export function overflows(el) {
  return el.scrollWidth > el.clientWidth + 1;
}

// A box made reachable when it overflows, and made plain again when it no longer does (only
// what this module set).
export function markScroller(el) {
  const wide = overflows(el);
  if (wide && !el.hasAttribute("tabindex")) {
    el.tabIndex = 0;
    el.setAttribute("role", "region");
    el.setAttribute("aria-label", REGION_LABEL);
    el.dataset.dpvizRegion = "1";
  } else if (!wide && el.dataset.dpvizRegion) {
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.removeAttribute("aria-label");
    delete el.dataset.dpvizRegion;
  }
}

const SVG = "http://www.w3.org/2000/svg";

// The display boxes in (or at) `node`, a node the page added (none in text or in SVG).
export function scrollersIn(node) {
  if (!node || node.nodeType !== 1 || node.namespaceURI === SVG) return [];
  const found = Array.from(node.querySelectorAll(SCROLLERS));
  return node.matches(SCROLLERS) ? [node, ...found] : found;
}

// Once per tab: every display box on the page now and later, marked as its size makes it.
export function watchScrollers() {
  if (window.__dpvizScrollers || typeof MutationObserver === "undefined") return;
  window.__dpvizScrollers = true;
  let sized = null;
  const resized = (seen) =>
    seen.forEach((e) => {
      if (!e.target.isConnected) return void sized.unobserve(e.target); // (removed: not held for the tab's life)
      markScroller(e.target.closest(SCROLLERS) || e.target);
    });
  if (typeof ResizeObserver !== "undefined") sized = new ResizeObserver(resized);
  const take = (el) => {
    markScroller(el);
    if (sized) {
      sized.observe(el);
      if (el.firstElementChild) sized.observe(el.firstElementChild); // (its content: fonts arriving widen it)
    }
  };
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) scrollersIn(node).forEach(take);
  }).observe(document.body, { childList: true, subtree: true });
  scrollersIn(document.body).forEach(take);
}
