// PhotoCluster task stream: the arithmetic behind its lanes (which stage goes in which row of
// its worker, where a bar sits on the time axis, which bar is under the pointer), kept apart
// from the drawing so it is tested on its own (Tests/Dashboard/task-math.test.js).
(function (root, factory) {
  "use strict";
  var math = factory();
  if (typeof module === "object" && module.exports) module.exports = math;
  else root.PhotoClusterTaskMath = math;
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  var STAGES = ["download", "decode", "filter", "encode", "write"];

  // Spans of one worker, each given the first lane free when it starts: the fewest rows in
  // which no two bars overlap (a worker running four photos at once shows four lanes; one
  // photo's stages, which follow each other, usually stay in one). Returns
  // { lanes: count, placed: [{ span, lane }] }, ordered by start.
  function packLanes(spans) {
    var ordered = spans.slice().sort(function (a, b) { return a.start - b.start || a.duration - b.duration; });
    var laneEnds = [];
    var placed = ordered.map(function (span) {
      var end = span.start + span.duration;
      for (var lane = 0; lane < laneEnds.length; lane++) {
        if (laneEnds[lane] <= span.start) {
          laneEnds[lane] = end;
          return { span: span, lane: lane };
        }
      }
      laneEnds.push(end);
      return { span: span, lane: laneEnds.length - 1 };
    });
    return { lanes: laneEnds.length, placed: placed };
  }

  // Spans grouped by worker, workers in name order: [{ worker, lanes, placed }].
  function layout(spans) {
    var byWorker = {};
    spans.forEach(function (span) { (byWorker[span.worker] = byWorker[span.worker] || []).push(span); });
    return Object.keys(byWorker).sort().map(function (worker) {
      var packed = packLanes(byWorker[worker]);
      return { worker: worker, lanes: packed.lanes, placed: packed.placed };
    });
  }

  // The x of a time (ms) in a view [end - width, end] drawn from x0 over `pixels`.
  function xOf(time, view, x0, pixels) {
    return x0 + ((time - (view.end - view.width)) / view.width) * pixels;
  }

  // Whether a span shows in the view at all.
  function visible(span, view) {
    return span.start + span.duration >= view.end - view.width && span.start <= view.end;
  }

  // A bar is drawn at least this wide, so a stage of a millisecond is still seen and clicked.
  var MIN_BAR_PX = 2;

  // The bar under (x, y) in rows laid out by `rowsOf` ({ y, height } per worker and lane), or null.
  function hit(rows, view, x0, pixels, x, y) {
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      if (y < row.y || y >= row.y + row.height) continue;
      var best = null;
      row.spans.forEach(function (span) {
        var left = xOf(span.start, view, x0, pixels);
        var right = Math.max(left + MIN_BAR_PX, xOf(span.start + span.duration, view, x0, pixels));
        if (x >= left - 1 && x <= right + 1 && (best === null || span.duration < best.duration)) best = span;
      });
      return best;
    }
    return null;
  }

  // The stage label a span is coloured by: its stage, with fused filters as filters.
  function stageOf(span) {
    return STAGES.indexOf(span.stage) >= 0 ? span.stage : "other";
  }

  // Gridlines for a view: a round step (ms) with about `count` lines across it.
  function timeStep(widthMs, count) {
    var steps = [100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000];
    var want = widthMs / Math.max(1, count);
    for (var i = 0; i < steps.length; i++) if (steps[i] >= want) return steps[i];
    return steps[steps.length - 1];
  }

  // Merges a page of spans into those kept, dropping what ended before `oldest` (ms) and,
  // past `max`, the oldest.
  function merge(kept, page, oldest, max) {
    var all = kept.concat(page).filter(function (span) { return span.start + span.duration >= oldest; });
    return all.length > max ? all.slice(all.length - max) : all;
  }

  return {
    STAGES: STAGES, MIN_BAR_PX: MIN_BAR_PX, packLanes: packLanes, layout: layout, xOf: xOf, visible: visible, hit: hit,
    stageOf: stageOf, timeStep: timeStep, merge: merge,
  };
});
