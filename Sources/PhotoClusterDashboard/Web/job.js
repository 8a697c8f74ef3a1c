// PhotoCluster job page: the table of photos as a grid of thumbnails. Polls /api/jobs/{id}
// every 500 ms and updates only the cells that changed; drives the job's viewport of interest
// from the scroll position through the HTTP API (POST /v1/jobs/{id}/viewport, within the token's
// rate limit): while the user scrolls it posts `scrolling: true` (at most one request per
// 200 ms), and once no scroll event came for 250 ms it posts the settled range. Thumbnails are
// the photos' outputs, GET /v1/jobs/{id}/photos/{name}/output.
(function () {
  "use strict";

  var POLL_MS = 500;
  var POLL_FINISHED_MS = 2000;
  var SCROLL_POST_INTERVAL_MS = 200;
  var SETTLE_MS = 250;
  var RESIZE_SETTLE_MS = 250;
  var PREFETCH_ROWS = 2;
  var PARKED_REASON = "left the viewport";
  var FINISHED_PHASES = { didFinish: true, cancelled: true };

  var path = location.pathname.replace(/\/+$/, "");
  var jobId = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
  var api = window.PhotoClusterAPI;
  var jobJSONPath = "/api/jobs/" + encodeURIComponent(jobId);   // the dashboard's own, with every photo
  var jobAPIPath = api.jobPath(jobId);                             // the HTTP API's
  var geometry = window.PhotoClusterViewportMath;

  var grid = document.getElementById("grid");
  var jobbar = document.getElementById("jobbar");
  var body = document.body;

  var cells = [];            // index -> {el, thumb, caption, signature, photo}
  var columns = 1;
  var cellSize = 150;
  var gap = 6;
  var phase = "";
  var initialPosted = false;

  // Viewport driving state.
  var userScrolling = false;
  var settleTimer = null;
  var resizeTimer = null;
  var pumpTimer = null;
  var pending = null;        // the newest viewport not sent yet (latest wins)
  var postInFlight = false;
  var lastScrollingPostAt = 0;
  var lastScrollY = null;

  var hooks = window.photoclusterViewport = {
    visibleStart: null, visibleEnd: null, prefetch: null, scrolling: false, sent: 0, lastStatus: null
  };
  body.dataset.viewportSettled = "false";

  function $(id) { return document.getElementById(id); }
  function num(value) { return typeof value === "number" && isFinite(value) ? value : 0; }
  function esc(value) {
    return String(value === undefined || value === null ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function setText(id, text) {
    var el = $(id);
    if (el && el.textContent !== String(text)) el.textContent = String(text);
  }
  function rate(value) {
    var v = num(value);
    return v === 0 ? "0" : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }
  function cssPixels(name, fallback) {
    var value = parseFloat(getComputedStyle(document.documentElement).getPropertyValue(name));
    return value > 0 ? value : fallback;
  }

  function finished() { return FINISHED_PHASES[phase] === true; }
  function drivable() { return cells.length > 0 && phase !== "" && !finished(); }

  // ---- fetching ---------------------------------------------------------------------------

  function showBanner(text) {
    var banner = $("coordinator-banner");
    if (text) {
      if (banner.textContent !== text) banner.textContent = text;
      banner.hidden = false;
    } else {
      banner.hidden = true;
    }
    $("live-dot").className = text ? "live-dot stale" : "live-dot";
  }

  function poll() {
    api.request(jobJSONPath)
      .then(function (response) {
        if (response.status === 404) {
          showBanner("job " + jobId + " is not known to the coordinator");
          setText("poll-status", "unknown job");
          return null;
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json().then(function (job) {
          showBanner(null);
          setText("poll-status", "live");
          applyJob(job);
        });
      })
      .catch(function () {
        showBanner("coordinator not reachable — retrying");
        setText("poll-status", "offline");
      })
      .finally(function () {
        setTimeout(poll, finished() ? POLL_FINISHED_MS : POLL_MS);
      });
  }

  // ---- the job ------------------------------------------------------------------------------

  function applySummary(job) {
    phase = String(job.phase || "");
    body.dataset.jobPhase = phase;
    var total = num(job.total), done = num(job.done);
    var succeeded = num(job.succeeded), failed = num(job.failed), cancelled = num(job.cancelled);
    document.title = "PhotoCluster — " + (job.label || jobId);
    setText("job-title", job.label || jobId);
    setText("job-id", job.id || jobId);
    setText("job-progress", done + "/" + total);
    var extra = [];
    if (cancelled) extra.push(cancelled + " cancelled");
    if (job.suspended) extra.push("suspended");
    setText("job-progress-extra", extra.join(" · "));
    function pct(part) { return total > 0 ? Math.min(100, (100 * part) / total).toFixed(2) + "%" : "0%"; }
    $("job-bar-ok").style.width = pct(succeeded);
    $("job-bar-bad").style.width = pct(failed);
    $("job-bar-cancelled").style.width = pct(cancelled);
    var phaseEl = $("job-phase");
    phaseEl.className = "badge " + phase;
    setText("job-phase", job.phaseLabel || phase || "–");
    setText("job-in-flight", num(job.inFlight));
    if ("photosPerSecond10s" in job) setText("job-rate", rate(job.photosPerSecond10s));
    setText("job-failed", failed);

    // The API's answer to a viewport change has no viewport: the next poll shows it.
    var v = job.viewport;
    var reported = $("viewport-reported");
    if (job.viewportMode === false) {
      setText("viewport-reported", "none");
      reported.title = "the job has no viewport: every photo is wanted";
    } else if (v) {
      setText("viewport-reported", "visible " + num(v.visibleStart) + "–" + num(v.visibleEnd) + ", prefetch " + num(v.prefetch));
      reported.title = "epoch " + num(v.epoch) + (v.scrolling ? ", scrolling (job suspended)" : ", settled");
    }
    if (finished()) {
      pending = null;
      clearTimeout(settleTimer);
      settleTimer = null;
    }
  }

  function applyJob(job) {
    applySummary(job);
    var photos = Array.isArray(job.photos) ? job.photos : [];
    var grew = photos.length !== cells.length;
    if (grew) ensureCells(photos.length);
    for (var i = 0; i < photos.length; i++) {
      var p = photos[i];
      var index = typeof p.index === "number" ? p.index : i;
      if (index >= 0 && index < cells.length) updateCell(cells[index], p);
    }
    $("grid-empty").hidden = cells.length > 0;
    if (grew) layout();
    if (!initialPosted && drivable()) {
      initialPosted = true;
      queuePost(false);
    }
  }

  // ---- cells ------------------------------------------------------------------------------

  function ensureCells(count) {
    while (cells.length > count) {
      var gone = cells.pop();
      gone.el.remove();
    }
    var fragment = document.createDocumentFragment();
    for (var i = cells.length; i < count; i++) {
      var el = document.createElement("div");
      el.className = "cell view-placeholder";
      el.setAttribute("data-index", String(i));
      el.setAttribute("data-state", "new");
      var thumb = document.createElement("div");
      thumb.className = "thumb";
      var caption = document.createElement("div");
      caption.className = "caption";
      el.appendChild(thumb);
      el.appendChild(caption);
      fragment.appendChild(el);
      cells.push({ el: el, thumb: thumb, caption: caption, signature: "", captionText: "" });
    }
    grid.appendChild(fragment);
  }

  function viewOf(p) {
    if (p.state === "done") return "image";
    if (p.state === "failed") return "failed";
    if (p.inFlight) return "spinner";
    if (p.state === "cancelled") return p.reason === PARKED_REASON ? "out-of-view" : "cancelled";
    return "placeholder";
  }

  function imageURL(name, attempt) {
    return api.photoOutputPath(jobId, name) + (attempt ? "?attempt=" + attempt : "");
  }

  function thumbHTML(view, p, index) {
    switch (view) {
    case "spinner":
      var where = [p.stage, p.worker].filter(function (s) { return s; }).join(" · ");
      return '<div class="spinner"></div>' + (where ? '<span class="note">' + esc(where) + "</span>" : "");
    case "failed":
      return '<div class="reason"><b>failed' + (p.stage ? " · " + esc(p.stage) : "") + "</b>" + esc(p.reason || "unknown error") + "</div>";
    case "out-of-view":
      return '<span class="index-mark">#' + index + '</span><span class="note">out of view</span>';
    case "cancelled":
      return "<div>cancelled" + (p.reason ? "<br>" + esc(p.reason) : "") + "</div>";
    default:
      var state = p.state && p.state !== "new" ? p.state : "";
      return '<span class="index-mark">#' + index + "</span>" + (state ? '<span class="note">' + esc(state) + "</span>" : "");
    }
  }

  function showImage(cell, index, name) {
    var img = document.createElement("img");
    img.alt = name || "photo " + index;
    img.decoding = "async";
    img.loading = "lazy";
    var attempt = 0;
    img.onerror = function () {
      // The output can lag its "done" by a moment, and a burst of thumbnails can pass the
      // token's rate limit; try again a few times, then say so.
      if (attempt < 3) {
        attempt++;
        setTimeout(function () { img.src = imageURL(name, attempt); }, 1000 * attempt);
      } else {
        img.remove();
        cell.thumb.innerHTML = '<span class="note">image not available</span>';
      }
    };
    img.src = imageURL(name, 0);
    cell.thumb.textContent = "";
    cell.thumb.appendChild(img);
  }

  function updateCell(cell, p) {
    var index = Number(cell.el.getAttribute("data-index"));
    var state = String(p.state || "new");
    var view = viewOf(p);
    var el = cell.el;
    if (el.getAttribute("data-state") !== state) el.setAttribute("data-state", state);
    var inFlight = p.inFlight ? "true" : "false";
    if (el.getAttribute("data-in-flight") !== inFlight) el.setAttribute("data-in-flight", inFlight);
    // An image already shown is never touched again, so it is not reloaded.
    var signature = view === "image" ? "image" : [view, state, p.stage, p.worker, p.reason].join("\u0001");
    if (cell.signature !== signature) {
      cell.signature = signature;
      el.className = "cell view-" + view;
      el.setAttribute("data-view", view);
      if (view === "image") showImage(cell, index, p.name);
      else cell.thumb.innerHTML = thumbHTML(view, p, index);
    }
    var captionText = (p.name || "") + "|" + num(p.width) + "x" + num(p.height);
    if (cell.captionText !== captionText) {
      cell.captionText = captionText;
      cell.caption.innerHTML = '<span class="idx">#' + index + "</span>" + esc(p.name);
      cell.caption.title = (p.name || "") + (p.width && p.height ? " — " + p.width + "×" + p.height : "");
    }
  }

  // ---- geometry ---------------------------------------------------------------------------

  function layout() {
    cellSize = cssPixels("--cell", 150);
    gap = cssPixels("--gap", 6);
    var width = grid.clientWidth;
    columns = geometry.columnsFor(width, cellSize, gap);
    var template = "repeat(" + columns + ", " + cellSize + "px)";
    if (grid.style.gridTemplateColumns !== template) grid.style.gridTemplateColumns = template;
  }

  // The rows on screen below the sticky header, as photo indexes, and two rows of prefetch.
  function currentRange() {
    return geometry.visibleRange({
      total: cells.length, columns: columns, cellSize: cellSize, gap: gap, prefetchRows: PREFETCH_ROWS,
      gridTop: grid.getBoundingClientRect().top,
      viewTop: Math.max(0, jobbar.getBoundingClientRect().bottom),
      viewBottom: document.documentElement.clientHeight || window.innerHeight
    });
  }

  function showLocal(range, scrolling) {
    setText("viewport-local", "visible " + range.visibleStart + "–" + range.visibleEnd +
      ", prefetch " + range.prefetch + (scrolling ? " · scrolling" : ""));
  }

  // ---- posting the viewport -------------------------------------------------------------------

  function queuePost(scrolling) {
    if (!drivable()) return;
    var range = currentRange();
    pending = {
      visibleStart: range.visibleStart, visibleEnd: range.visibleEnd,
      prefetch: range.prefetch, scrolling: scrolling
    };
    showLocal(range, scrolling);
    pump();
  }

  // One request at a time, so the coordinator sees them in order; the newest range wins; a
  // scrolling request goes out at most once per SCROLL_POST_INTERVAL_MS.
  function pump() {
    if (postInFlight || !pending || pumpTimer) return;
    if (!drivable()) { pending = null; return; }
    if (pending.scrolling) {
      var wait = lastScrollingPostAt + SCROLL_POST_INTERVAL_MS - Date.now();
      if (wait > 0) {
        pumpTimer = setTimeout(function () { pumpTimer = null; pump(); }, wait);
        return;
      }
      lastScrollingPostAt = Date.now();
    }
    var sent = pending;
    pending = null;
    postInFlight = true;
    var status = 0;
    var retryMs = 0;
    api.request(jobAPIPath + "/viewport", { method: "POST", json: sent })
      .then(function (response) {
        status = response.status;
        retryMs = api.retryAfterMs(response, 1000);
        return response.json().catch(function () { return null; });
      })
      .catch(function () { return null; })
      .then(function (json) {
        postInFlight = false;
        hooks.visibleStart = sent.visibleStart;
        hooks.visibleEnd = sent.visibleEnd;
        hooks.prefetch = sent.prefetch;
        hooks.scrolling = sent.scrolling;
        hooks.sent += 1;
        hooks.lastStatus = status;
        if (status === 200 && json && typeof json === "object" && json.counts) applySummary(api.summaryFromJob(json));
        if (!sent.scrolling && status === 200 && !userScrolling && !pending) {
          body.dataset.viewportSettled = "true";
        }
        if (status === 0) showBanner("coordinator not reachable — retrying");
        else if (status !== 200) setText("poll-status", "viewport refused: " + api.refusalText(json, status));
        if (status === 429) {
          // Over the token's rate: send it again when allowed, unless a newer range came meanwhile.
          if (!pending) pending = sent;
          pumpTimer = setTimeout(function () { pumpTimer = null; pump(); }, retryMs);
          return;
        }
        pump();
      });
  }

  function onScroll() {
    // Only a change of position counts: a layout change can fire a scroll event in place.
    var y = window.scrollY;
    if (y === lastScrollY) return;
    lastScrollY = y;
    if (!drivable()) return;
    userScrolling = true;
    body.dataset.viewportSettled = "false";
    queuePost(true);
    clearTimeout(settleTimer);
    settleTimer = setTimeout(function () {
      settleTimer = null;
      userScrolling = false;
      if (pumpTimer) { clearTimeout(pumpTimer); pumpTimer = null; }
      queuePost(false);
    }, SETTLE_MS);
  }

  function onResize() {
    layout();
    if (!drivable()) return;
    showLocal(currentRange(), userScrolling);
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      resizeTimer = null;
      if (!userScrolling) queuePost(false);   // a scroll in progress settles by itself
    }, RESIZE_SETTLE_MS);
  }

  lastScrollY = window.scrollY;
  window.addEventListener("scroll", onScroll, { passive: true });
  window.addEventListener("resize", onResize);
  setText("job-id", jobId);
  layout();
  poll();
})();
