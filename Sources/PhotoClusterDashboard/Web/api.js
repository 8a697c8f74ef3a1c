// PhotoCluster dashboard: every request the pages make to the coordinator's JSON API goes
// through PhotoClusterAPI.request, so a header every request needs is added here, once.
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

  return { request: request, getJSON: getJSON, TIMEOUT_MS: TIMEOUT_MS };
});
