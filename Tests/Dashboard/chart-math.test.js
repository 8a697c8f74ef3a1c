// The overview's chart arithmetic (Sources/PhotoClusterDashboard/Web/chart-math.js).
"use strict";
var assert = require("assert");
var chart = require("../../Sources/PhotoClusterDashboard/Web/chart-math.js");
var test = require("node:test");

test("the y scale: a round step, at most five lines, the largest value inside", function () {
  [0.3, 1, 4.2, 7, 9.99, 10, 12, 37, 99, 101, 640, 1234, 98765].forEach(function (max) {
    var scale = chart.yScale(max);
    var steps = Math.round(scale.max / scale.step);
    assert.ok(scale.max >= max, max + ": " + JSON.stringify(scale));
    assert.ok(steps >= 1 && steps <= 5, max + ": " + JSON.stringify(scale));
    var mantissa = scale.step / Math.pow(10, Math.floor(Math.log10(scale.step)));
    assert.ok([1, 2, 2.5, 5].some(function (m) { return Math.abs(m - mantissa) < 1e-9; }), max + ": step " + scale.step);
  });
  assert.deepStrictEqual(chart.yScale(7), { max: 8, step: 2 });
  assert.deepStrictEqual(chart.yScale(10), { max: 10, step: 2 });
  assert.deepStrictEqual(chart.yScale(12), { max: 12.5, step: 2.5 });
});

test("the y scale of an empty chart", function () {
  assert.deepStrictEqual(chart.yScale(0), { max: 1, step: 0.25 });
  assert.deepStrictEqual(chart.yScale(NaN), { max: 1, step: 0.25 });
});

test("smoothing: the mean of up to five samples", function () {
  assert.deepStrictEqual(chart.smooth([5, 5, 5]), [5, 5, 5]);
  assert.deepStrictEqual(chart.smooth([0, 10, 0, 10, 0, 10]), [0, 5, 10 / 3, 5, 4, 6]);
  assert.deepStrictEqual(chart.smooth([]), []);
});

test("the time axis: at most seven marks, from round steps", function () {
  assert.strictEqual(chart.timeStep(60), 10);
  assert.strictEqual(chart.timeStep(71), 15);
  assert.strictEqual(chart.timeStep(600), 120);
  assert.strictEqual(chart.timeStep(100000), 300);
});

test("labels", function () {
  assert.strictEqual(chart.relativeLabel(0), "now");
  assert.strictEqual(chart.relativeLabel(30), "−30 s");
  assert.strictEqual(chart.relativeLabel(120), "−2 min");
  assert.strictEqual(chart.relativeLabel(90), "−1:30");
  assert.strictEqual(chart.tickLabel(0.30000000000000004), "0.3");
});
