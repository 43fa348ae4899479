// dpviz's plotly.js: the core (with scatter) and the trace types dpviz's figures draw, no more
// (scripts/plotly_bundle/build.sh; webui/plotly_bundle.py says why). A figure that draws a trace
// type missing here is caught by tests/web/test_plotly_bundle.py: add it below and build again.
var Plotly = require("plotly.js/lib/core");

Plotly.register([
  require("plotly.js/lib/bar"),
  require("plotly.js/lib/heatmap"),
  require("plotly.js/lib/contour"),
  require("plotly.js/lib/scatter3d"),
]);

window.Plotly = Plotly;
