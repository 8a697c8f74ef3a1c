// PhotoCluster job page: which photos a scroll position shows. Pure arithmetic on numbers the
// page measures, so it is tested on its own (Tests/Dashboard/viewport-math.test.js).
(function (root, factory) {
  "use strict";
  var math = factory();
  if (typeof module === "object" && module.exports) module.exports = math;
  else root.PhotoClusterViewportMath = math;
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  // How many cells of `cellSize` pixels, `gap` apart, fit across `width` pixels (at least one).
  function columnsFor(width, cellSize, gap) {
    return Math.max(1, Math.floor((width + gap) / (cellSize + gap)));
  }

  // The photos on screen, as the indexes of a grid of `total` cells in `columns` columns, with
  // `prefetchRows` rows of prefetch. Positions are in pixels from the top of the window:
  // `gridTop` is the grid's top edge, `viewTop` and `viewBottom` the part of the window not
  // covered by the page's sticky header. A row counts once any of its cells is on screen, not
  // only the gap below it.
  function visibleRange(geometry) {
    var total = geometry.total;
    var columns = Math.max(1, geometry.columns);
    var cellSize = geometry.cellSize;
    var pitch = cellSize + geometry.gap;
    var rows = Math.ceil(total / columns);
    var top = geometry.viewTop - geometry.gridTop;
    var bottom = geometry.viewBottom - 1 - geometry.gridTop;
    var first = Math.floor(top / pitch);
    if (top - first * pitch >= cellSize) first++;          // only the gap of that row is on screen
    var last = Math.floor(bottom / pitch);
    first = Math.min(Math.max(first, 0), rows - 1);
    last = Math.min(Math.max(last, first), rows - 1);
    return {
      visibleStart: Math.min(first * columns, total - 1),
      visibleEnd: Math.min(last * columns + columns - 1, total - 1),
      prefetch: geometry.prefetchRows * columns
    };
  }

  return { columnsFor: columnsFor, visibleRange: visibleRange };
});
