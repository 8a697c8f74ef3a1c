// PhotoCluster dashboard: every request the pages make to the coordinator goes through
// PhotoClusterAPI.request, so a header every request needs is added here, once. The pages read
// the dashboard's own JSON (/api/...) and act through the HTTP API (/v1/...), which takes the
// dashboard's cookie as it takes a token: the same tokens and the same per-token rate limits.
(function (root, factory) {
  "use strict";
  var api = factory(root);
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.PhotoClusterAPI = api;
})(typeof globalThis !== "undefined" ? globalThis : this, function (root) {
  "use strict";

  var TIMEOUT_MS = 4000;

  // fetch(path, options) with the dashboard's defaults: never from the browser's cache, given
  // up after TIMEOUT_MS, JSON bodies sent as JSON. Resolves to the Response, as fetch does.
  function request(path, options) {
    options = options || {};
    var init = { method: options.method || "GET", cache: "no-store", headers: {} };
    if (options.json !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.json);
    }
    var controller = typeof root.AbortController === "function" ? new root.AbortController() : null;
    var timer = controller ? setTimeout(function () { controller.abort(); }, options.timeoutMs || TIMEOUT_MS) : null;
    if (controller) init.signal = controller.signal;
    return root.fetch(path, init).finally(function () { if (timer) clearTimeout(timer); });
  }

  // The parsed JSON body of a GET; rejects on a status other than 2xx, naming the path.
  function getJSON(path) {
    return request(path).then(function (response) {
      if (!response.ok) throw new Error(path + ": HTTP " + response.status);
      return response.json();
    });
  }

  // ---- the HTTP API (/v1) ----------------------------------------------------------------------

  function jobPath(jobId) {
    return "/v1/jobs/" + encodeURIComponent(jobId);
  }

  // A finished photo's file, by the photo's name in the manifest.
  function photoOutputPath(jobId, name) {
    return jobPath(jobId) + "/photos/" + encodeURIComponent(name) + "/output";
  }

  // The milliseconds a 429 or 503 asks to wait (its Retry-After, in seconds), else fallbackMs.
  function retryAfterMs(response, fallbackMs) {
    var header = response && response.headers && response.headers.get ? response.headers.get("Retry-After") : null;
    var seconds = header === null ? NaN : Number(header);
    return isFinite(seconds) && seconds >= 0 ? seconds * 1000 : fallbackMs;
  }

  // What a refusal's body says: the API's problem detail (RFC 9457), or the dashboard's error.
  function refusalText(body, status) {
    if (body && typeof body === "object") {
      if (typeof body.detail === "string" && body.detail) return body.detail;
      if (typeof body.error === "string" && body.error) return body.error;
    }
    return "HTTP " + status;
  }

  var PHASES = {
    preparing: ["preparation", "preparing"], running: ["inProgress", "in progress"], finishing: ["willFinish", "finishing"],
    finished: ["didFinish", "finished"], cancelled: ["cancelled", "cancelled"]
  };

  // A /v1 Job as the fields of the dashboard's job JSON (/api/jobs/{id}) that it has: the phase,
  // the counts, what is in flight, suspended, viewport mode. It has no rate and no viewport, so
  // those keys are left out (not zeroed).
  function summaryFromJob(job) {
    var counts = job.counts || {};
    var phase = PHASES[job.state] || [String(job.state || ""), String(job.state || "")];
    return {
      id: job.id, label: job.label || "", phase: phase[0], phaseLabel: phase[1],
      total: counts.total, done: counts.done, succeeded: counts.succeeded, failed: counts.failed, cancelled: counts.cancelled,
      inFlight: job.inFlight, suspended: job.suspended === true, viewportMode: job.viewportMode === true
    };
  }

  return {
    request: request, getJSON: getJSON, TIMEOUT_MS: TIMEOUT_MS,
    jobPath: jobPath, photoOutputPath: photoOutputPath, retryAfterMs: retryAfterMs, refusalText: refusalText,
    summaryFromJob: summaryFromJob
  };
});
