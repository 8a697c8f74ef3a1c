// PhotoCluster overview page: the arithmetic of its throughput charts (smoothing, the y scale,
// the time axis and their labels), kept apart from the drawing so it is tested on its own
// (Tests/Dashboard/chart-math.test.js).
(function (root, factory) {
  "use strict";
  var math = factory();
  if (typeof module === "object" && module.exports) module.exports = math;
  else root.PhotoClusterChartMath = math;
})(typeof globalThis !== "undefined" ? globalThis : this, function () {
  "use strict";

  var SMOOTH_SAMPLES = 5;
  var TIME_STEPS = [10, 15, 30, 60, 120, 300];

  // The mean of each value and the up to SMOOTH_SAMPLES - 1 values before it.
  function smooth(values) {
    var out = [];
    var sum = 0;
    for (var i = 0; i < values.length; i++) {
      sum += values[i];
      if (i >= SMOOTH_SAMPLES) sum -= values[i - SMOOTH_SAMPLES];
      out.push(sum / Math.min(i + 1, SMOOTH_SAMPLES));
    }
    return out;
  }

  // A round step between grid lines, with at most five of them up to the largest value.
  function yScale(maxValue) {
    if (!(maxValue > 0)) return { max: 1, step: 0.25 };
    var exponent = Math.pow(10, Math.floor(Math.log10(maxValue / 5)));
    var steps = [1, 2, 2.5, 5, 10, 20];
    for (var i = 0; i < steps.length; i++) {
      var step = steps[i] * exponent;
      if (Math.ceil(maxValue / step - 1e-9) <= 5) return { max: Math.ceil(maxValue / step - 1e-9) * step, step: step };
    }
    return { max: 5 * 20 * exponent, step: 20 * exponent };
  }

  // Seconds between the time axis' marks: the smallest of TIME_STEPS that gives at most seven.
  function timeStep(span) {
    for (var i = 0; i < TIME_STEPS.length; i++) {
      if (span / TIME_STEPS[i] <= 7) return TIME_STEPS[i];
    }
    return TIME_STEPS[TIME_STEPS.length - 1];
  }

  function tickLabel(value) {
    return String(Math.round(value * 100) / 100);
  }

  // A time axis mark, counted back from the newest sample: "now", "−30 s", "−2 min", "−1:30".
  function relativeLabel(seconds) {
    if (seconds <= 0.5) return "now";
    if (seconds < 60) return "−" + Math.round(seconds) + " s";
    var m = Math.floor(seconds / 60), s = Math.round(seconds % 60);
    return "−" + m + (s ? ":" + (s < 10 ? "0" : "") + s : " min");
  }

  return { smooth: smooth, yScale: yScale, timeStep: timeStep, tickLabel: tickLabel, relativeLabel: relativeLabel };
});
