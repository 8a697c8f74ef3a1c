// The job page's viewport from its scroll position (Sources/PhotoClusterDashboard/Web/viewport-math.js).
"use strict";
var assert = require("assert");
var math = require("../../Sources/PhotoClusterDashboard/Web/viewport-math.js");
var test = require("node:test");

// A grid of 150-pixel cells 6 pixels apart: a row every 156 pixels.
function range(overrides) {
  var geometry = { total: 100, columns: 4, cellSize: 150, gap: 6, prefetchRows: 2, gridTop: 100, viewTop: 100, viewBottom: 700 };
  Object.keys(overrides || {}).forEach(function (key) { geometry[key] = overrides[key]; });
  return math.visibleRange(geometry);
}

test("columns: as many cells as fit, at least one", function () {
  assert.strictEqual(math.columnsFor(4 * 150 + 3 * 6, 150, 6), 4);
  assert.strictEqual(math.columnsFor(4 * 150 + 3 * 6 - 1, 150, 6), 3);
  assert.strictEqual(math.columnsFor(40, 150, 6), 1);
});

test("at the top, the rows the window shows", function () {
  // 600 pixels of view from the grid's top edge: rows 0-3 (row 3 starts at 468).
  assert.deepStrictEqual(range(), { visibleStart: 0, visibleEnd: 15, prefetch: 8 });
});

test("scrolled down, the first row is the one whose cells are still on screen", function () {
  // The grid's top is 400 pixels above the view: row 2 (312-462) is on screen, row 1 is not.
  assert.deepStrictEqual(range({ gridTop: -300 }), { visibleStart: 8, visibleEnd: 27, prefetch: 8 });
  // Only the gap under row 2 is on screen (view starts 465 below the grid top): row 3 is the first.
  assert.strictEqual(range({ gridTop: -365 }).visibleStart, 12);
});

test("a sticky header covers the top of the window", function () {
  // The header ends at 249: the view starts there, 149 below the grid's top, on row 0's last line.
  assert.strictEqual(range({ viewTop: 249 }).visibleStart, 0);
  // At 250 only the gap under row 0 shows: row 1 is the first.
  assert.strictEqual(range({ viewTop: 250 }).visibleStart, 4);
});

test("never past the last photo, whatever the scroll", function () {
  assert.deepStrictEqual(range({ gridTop: -100000 }), { visibleStart: 96, visibleEnd: 99, prefetch: 8 });
  assert.deepStrictEqual(range({ total: 3 }), { visibleStart: 0, visibleEnd: 2, prefetch: 8 });
});

test("prefetch is whole rows", function () {
  assert.strictEqual(range({ columns: 7, prefetchRows: 2 }).prefetch, 14);
  assert.strictEqual(range({ columns: 1, prefetchRows: 3 }).prefetch, 3);
});
