// The task stream's arithmetic (Sources/PhotoClusterDashboard/Web/task-math.js).
"use strict";
var assert = require("assert");
var math = require("../../Sources/PhotoClusterDashboard/Web/task-math.js");
var test = require("node:test");

function span(worker, start, duration, stage) {
  return { worker: worker, start: start, duration: duration, stage: stage || "decode", name: stage || "decode" };
}

test("lanes: the fewest rows without overlaps, each stage in the first lane free", function () {
  var packed = math.packLanes([span("w1", 0, 10), span("w1", 5, 10), span("w1", 10, 5), span("w1", 12, 1)]);
  assert.strictEqual(packed.lanes, 3);
  assert.deepStrictEqual(packed.placed.map(function (p) { return [p.span.start, p.lane]; }), [[0, 0], [5, 1], [10, 0], [12, 2]]);
  assert.deepStrictEqual(math.packLanes([]), { lanes: 0, placed: [] });
});

test("layout: one group per worker, in name order", function () {
  var rows = math.layout([span("w2", 0, 1), span("w1", 0, 1), span("w1", 0, 1)]);
  assert.deepStrictEqual(rows.map(function (r) { return [r.worker, r.lanes]; }), [["w1", 2], ["w2", 1]]);
});

test("the time axis: x of a time, what is visible, round gridline steps", function () {
  var view = { end: 10000, width: 1000 };
  assert.strictEqual(math.xOf(9000, view, 100, 500), 100);
  assert.strictEqual(math.xOf(10000, view, 100, 500), 600);
  assert.strictEqual(math.xOf(9500, view, 100, 500), 350);
  assert.ok(math.visible(span("w", 8990, 20), view), "ends inside");
  assert.ok(!math.visible(span("w", 8000, 20), view), "ended before");
  assert.ok(!math.visible(span("w", 10001, 5), view), "starts after");
  assert.strictEqual(math.timeStep(60000, 6), 10000);
  assert.strictEqual(math.timeStep(10000, 6), 2000);
  assert.strictEqual(math.timeStep(1e9, 6), 300000);
});

test("hit: the bar under the pointer, the shortest where bars meet, nothing between rows", function () {
  var view = { end: 1000, width: 1000 };
  var long = span("w1", 0, 500), short = span("w1", 500, 1);
  var rows = [{ y: 0, height: 16, spans: [long, short] }, { y: 20, height: 16, spans: [] }];
  assert.strictEqual(math.hit(rows, view, 0, 1000, 250, 5), long);
  assert.strictEqual(math.hit(rows, view, 0, 1000, 501, 5), short, "a 1 ms bar is still MIN_BAR_PX wide");
  assert.strictEqual(math.hit(rows, view, 0, 1000, 800, 5), null);
  assert.strictEqual(math.hit(rows, view, 0, 1000, 250, 18), null, "the gap between rows");
  assert.strictEqual(math.hit(rows, view, 0, 1000, 250, 25), null, "an empty row");
});

test("merge: what the page keeps is bounded by age and by count", function () {
  var kept = [span("w", 0, 10), span("w", 100, 10)];
  var merged = math.merge(kept, [span("w", 200, 10), span("w", 300, 10)], 50, 10);
  assert.deepStrictEqual(merged.map(function (s) { return s.start; }), [100, 200, 300]);
  assert.deepStrictEqual(math.merge(merged, [], 0, 2).map(function (s) { return s.start; }), [200, 300]);
  assert.strictEqual(math.stageOf({ stage: "encode" }), "encode");
  assert.strictEqual(math.stageOf({ stage: "schedule" }), "other");
});
