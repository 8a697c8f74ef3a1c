// Every dashboard request goes through PhotoClusterAPI.request (Sources/PhotoClusterDashboard/Web/api.js).
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
