// Every dashboard request goes through PhotoClusterAPI.request (Sources/PhotoClusterDashboard/Web/api.js),
// and what the pages send to and read from the HTTP API (/v1) is shaped there.
"use strict";
var assert = require("assert");
var test = require("node:test");

var calls = [];
globalThis.fetch = function (path, init) {
  calls.push({ path: path, init: init });
  var status = path === "/missing" ? 404 : 200;
  return Promise.resolve({ ok: status === 200, status: status, json: function () { return Promise.resolve({ path: path }); } });
};
var api = require("../../Sources/PhotoClusterDashboard/Web/api.js");

test("a GET: never cached, given a deadline", function () {
  calls = [];
  return api.getJSON("/api/overview").then(function (body) {
    assert.deepStrictEqual(body, { path: "/api/overview" });
    assert.strictEqual(calls.length, 1);
    assert.strictEqual(calls[0].init.method, "GET");
    assert.strictEqual(calls[0].init.cache, "no-store");
    assert.ok(calls[0].init.signal, "an abort signal for the timeout");
  });
});

test("a POST of JSON", function () {
  calls = [];
  return api.request("/api/jobs/j1/viewport", { method: "POST", json: { visibleStart: 4 } }).then(function () {
    assert.strictEqual(calls[0].init.method, "POST");
    assert.strictEqual(calls[0].init.headers["Content-Type"], "application/json");
    assert.strictEqual(calls[0].init.body, '{"visibleStart":4}');
  });
});

test("a failed GET names the path and the status", function () {
  return api.getJSON("/missing").then(function () { assert.fail("resolved"); }, function (error) {
    assert.strictEqual(error.message, "/missing: HTTP 404");
  });
});

test("a request that takes too long is aborted", function () {
  var saved = globalThis.fetch;
  globalThis.fetch = function (path, init) {
    return new Promise(function (resolve, reject) {
      init.signal.addEventListener("abort", function () { reject(new Error("aborted")); });
    });
  };
  return api.request("/slow", { timeoutMs: 20 }).then(function () { assert.fail("resolved"); }, function (error) {
    assert.strictEqual(error.message, "aborted");
  }).finally(function () { globalThis.fetch = saved; });
});

test("the HTTP API's paths escape the job id and the photo's name", function () {
  assert.strictEqual(api.jobPath("job-1a2b"), "/v1/jobs/job-1a2b");
  assert.strictEqual(api.photoOutputPath("job-1", "Horse 2/a?b#c"), "/v1/jobs/job-1/photos/Horse%202%2Fa%3Fb%23c/output");
});

test("Retry-After in seconds, or the fallback", function () {
  function answer(value) { return { headers: { get: function (name) { return name === "Retry-After" ? value : null; } } }; }
  assert.strictEqual(api.retryAfterMs(answer("2"), 1000), 2000);
  assert.strictEqual(api.retryAfterMs(answer(null), 1000), 1000);
  assert.strictEqual(api.retryAfterMs(answer("soon"), 750), 750);
  assert.strictEqual(api.retryAfterMs(null, 500), 500);
});

test("a refusal's text: the API's problem detail, the dashboard's error, or the status", function () {
  assert.strictEqual(api.refusalText({ type: "about:blank", title: "Too Many Requests", status: 429, detail: "too many requests" }, 429), "too many requests");
  assert.strictEqual(api.refusalText({ error: "no asset x" }, 404), "no asset x");
  assert.strictEqual(api.refusalText(null, 502), "HTTP 502");
});

test("an API Job as the job page's summary: phase, counts, flags, and no rate or viewport", function () {
  var summary = api.summaryFromJob({
    id: "job-1", state: "running", suspended: true, inFlight: 3, elapsedSeconds: 4.5, output: "/out", viewportMode: true,
    counts: { total: 40, done: 7, succeeded: 5, failed: 1, cancelled: 1 }, failures: []
  });
  assert.deepStrictEqual(summary, {
    id: "job-1", label: "", phase: "inProgress", phaseLabel: "in progress", total: 40, done: 7, succeeded: 5, failed: 1,
    cancelled: 1, inFlight: 3, suspended: true, viewportMode: true
  });
  assert.strictEqual(api.summaryFromJob({ state: "finished", counts: {} }).phase, "didFinish");
  assert.strictEqual(api.summaryFromJob({ state: "cancelled", label: "L", counts: {} }).label, "L");
  assert.ok(!("viewport" in summary) && !("photosPerSecond10s" in summary));
});
