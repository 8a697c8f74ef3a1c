// PhotoCluster overview page: polls /api/overview and /api/history once a second and draws
// the cards, tables and charts. Plain JavaScript; the charts are drawn on <canvas>.
(function () {
  "use strict";

  var REFRESH_MS = 1000;
  var PALETTE = ["#3d8bfd", "#f08c2e", "#2f9e5b", "#d64545", "#8e6bd8", "#1fa8a8",
                 "#c9a227", "#d45fae", "#5f7fa3", "#7cb342", "#a0522d", "#00838f"];
  var TOTAL_COLOR = "#1c2430";

  var colors = {};          // series key -> colour, stable for the life of the page
  var colorCount = 0;
  var lastOverview = null;
  var lastHistory = null;
  var lastSuccess = 0;
  var api = window.PhotoClusterAPI;
  var chart = window.PhotoClusterChartMath;

  function $(id) { return document.getElementById(id); }

  function colorFor(key) {
    if (!(key in colors)) { colors[key] = PALETTE[colorCount % PALETTE.length]; colorCount++; }
    return colors[key];
  }

  function esc(value) {
    return String(value === undefined || value === null ? "" : value)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  function num(value) { return typeof value === "number" && isFinite(value) ? value : 0; }

  function rate(value) {
    var v = num(value);
    if (v === 0) return "0";
    if (v >= 100) return v.toFixed(0);
    if (v >= 10) return v.toFixed(1);
    return v.toFixed(2);
  }

  function duration(seconds) {
    var s = Math.max(0, Math.floor(num(seconds)));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    if (h > 0) return h + " h " + (m < 10 ? "0" : "") + m + " min";
    if (m > 0) return m + " min " + (r < 10 ? "0" : "") + r + " s";
    return r + " s";
  }

  function clock(unixSeconds) {
    var d = new Date(num(unixSeconds) * 1000);
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }

  function setText(id, text) {
    var el = $(id);
    if (el && el.textContent !== String(text)) el.textContent = String(text);
  }

  // ---- fetching ---------------------------------------------------------------------------

  function refresh() {
    Promise.all([api.getJSON("/api/overview"), api.getJSON("/api/history")])
      .then(function (results) {
        lastOverview = results[0];
        lastHistory = results[1];
        lastSuccess = Date.now();
        showBanner(false);
        render();
      })
      .catch(function (error) {
        showBanner(true, error);
      })
      .finally(function () {
        setTimeout(refresh, REFRESH_MS);
      });
  }

  function showBanner(visible, error) {
    var banner = $("coordinator-banner");
    banner.hidden = !visible;
    if (visible) {
      var since = lastSuccess ? "last update " + clock(lastSuccess / 1000) : "no update yet";
      banner.title = (error && error.message ? error.message + "; " : "") + since;
    }
    $("live-dot").className = visible ? "live-dot stale" : "live-dot";
  }

  // ---- rendering ---------------------------------------------------------------------------

  function render() {
    var o = lastOverview || {};
    var workers = Array.isArray(o.workers) ? o.workers : [];
    var jobs = Array.isArray(o.jobs) ? o.jobs : [];
    var failures = Array.isArray(o.failures) ? o.failures : [];
    var t = o.throughput || {};
    var q = o.queues || {};

    setText("coordinator-id", o.coordinatorId || "coordinator");
    setText("uptime", "up " + duration(o.uptimeSeconds) +
      (o.residentBytes ? " · " + Math.round(num(o.residentBytes) / 1048576) + " MiB resident" : ""));
    setText("workers-connected", workers.length);
    var concurrency = 0, inFlight = 0;
    workers.forEach(function (w) { concurrency += num(w.concurrency); inFlight += num(w.inFlight); });
    setText("workers-concurrency", concurrency);
    setText("workers-in-flight", inFlight);
    setText("photos-per-second-10s", rate(t.photosPerSecond10s));
    setText("photos-per-second-60s", rate(t.photosPerSecond60s));
    setText("megapixels-per-second-10s", rate(t.megapixelsPerSecond10s));
    setText("megapixels-per-second-60s", rate(t.megapixelsPerSecond60s));
    setText("queued-coordinator", num(q.queued));
    ["download", "decode", "filter", "encode"].forEach(function (stage) {
      setText("queue-" + stage, num(q[stage]));
    });

    renderWorkers(workers);
    renderJobs(jobs);
    renderFailures(failures);
    renderCharts(workers, jobs);
  }

  // Keeps one <tr> per key, updating a row's HTML only when it changed, in the given order.
  function syncRows(tbody, items, keyAttr, keyOf, htmlOf, emptyHTML, rowClass) {
    if (items.length === 0) {
      if (!tbody.querySelector("tr.empty") || tbody.rows.length !== 1) tbody.innerHTML = emptyHTML;
      return;
    }
    var existing = {};
    Array.prototype.forEach.call(tbody.querySelectorAll("tr"), function (tr) {
      var key = tr.getAttribute(keyAttr);
      if (key === null) tr.remove(); else existing[key] = tr;
    });
    var previous = null;
    items.forEach(function (item) {
      var key = String(keyOf(item));
      var tr = existing[key];
      if (tr) delete existing[key];
      else {
        tr = document.createElement("tr");
        tr.setAttribute(keyAttr, key);
        if (rowClass) tr.className = rowClass;
      }
      var html = htmlOf(item);
      if (tr._html !== html) { tr.innerHTML = html; tr._html = html; }
      var wanted = previous ? previous.nextSibling : tbody.firstChild;
      if (wanted !== tr) tbody.insertBefore(tr, wanted);
      previous = tr;
    });
    Object.keys(existing).forEach(function (key) { existing[key].remove(); });
  }

  function stagesHTML(stages) {
    stages = stages || {};
    return ["download", "decode", "filter", "encode"].map(function (s) {
      return esc(s) + " <b>" + num(stages[s]) + "</b>";
    }).join(" · ");
  }

  function renderWorkers(workers) {
    setText("workers-count", workers.length === 1 ? "1 connected" : workers.length + " connected");
    var sorted = workers.slice().sort(function (a, b) { return String(a.id).localeCompare(String(b.id)); });
    syncRows($("workers-body"), sorted, "data-worker-id", function (w) { return w.id; }, function (w) {
      return '<td><span class="legend"><span class="item"><span class="swatch" style="background:' + colorFor("w:" + w.id) + '"></span>' +
        '<span class="mono">' + esc(w.id) + "</span></span></span></td>" +
        "<td>" + esc(w.host) + "</td>" +
        '<td class="num">' + num(w.concurrency) + "</td>" +
        '<td class="num">' + num(w.inFlight) + "</td>" +
        '<td class="num">' + num(w.completed) + "</td>" +
        '<td class="num">' + rate(w.photosPerSecond10s) + "</td>" +
        '<td class="num">' + rate(w.photosPerSecond60s) + "</td>" +
        '<td class="stages">' + stagesHTML(w.stages) + "</td>" +
        "<td>" + memoryHTML(w.memory, w.residentBytes) + "</td>";
    }, '<tr class="empty"><td colspan="9">no workers connected</td></tr>');
  }

  // A worker's memory budget: held of budget (limit), and the photos waiting for room; then
  // the process's resident memory, which holds the budget's photos and the stage cache besides.
  function memoryHTML(m, resident) {
    var gib = function (bytes) { return (num(bytes) / 1073741824).toFixed(1); };
    var residentHTML = resident ? '<span class="muted">' + gib(resident) + " GiB resident</span>" : "";
    if (!m) return residentHTML || '<span class="muted">–</span>';
    var text = gib(m.inUseBytes) + " of " + gib(m.budgetBytes) + " GiB";
    var title = "limit " + gib(m.limitBytes) + " GiB";
    if (num(m.waiting) > 0) text += ' <span class="badge suspended">' + num(m.waiting) + " waiting</span>";
    return '<span title="' + esc(title) + '">' + text + "</span>" + (residentHTML ? "<br>" + residentHTML : "");
  }

  function percent(part, total) {
    return total > 0 ? Math.min(100, Math.max(0, (100 * part) / total)) : 0;
  }

  function viewportText(job) {
    var v = job.viewport;
    if (!job.viewportMode || !v) return '<span class="muted">all photos</span>';
    var text = num(v.visibleStart) + "–" + num(v.visibleEnd) + " +" + num(v.prefetch);
    var badges = "";
    if (v.scrolling) badges += ' <span class="badge suspended">scrolling</span>';
    else if (job.suspended) badges += ' <span class="badge suspended">suspended</span>';
    return '<span class="mono">' + esc(text) + "</span>" + badges;
  }

  function renderJobs(jobs) {
    setText("jobs-count", jobs.length === 1 ? "1 job" : jobs.length + " jobs");
    syncRows($("jobs-body"), jobs, "data-job-id", function (j) { return j.id; }, function (j) {
      var total = num(j.total), done = num(j.done);
      var succeeded = num(j.succeeded), failed = num(j.failed), cancelled = num(j.cancelled);
      var extra = [];
      if (failed) extra.push('<span class="failed">' + failed + " failed</span>");
      if (cancelled) extra.push('<span class="cancelled">' + cancelled + " cancelled</span>");
      var phase = String(j.phase || "");
      return '<td><span class="legend"><span class="item"><span class="swatch" style="background:' + colorFor("j:" + j.id) + '"></span>' +
        '<a class="mono job-link" href="/jobs/' + encodeURIComponent(j.id) + '">' + esc(j.id) + "</a></span></span>" +
        '<span class="job-label">' + esc(j.label) + "</span></td>" +
        '<td><span class="badge ' + esc(phase) + '">' + esc(j.phaseLabel || phase) + "</span>" +
        (j.suspended && !(j.viewport && j.viewport.scrolling) ? ' <span class="badge suspended">suspended</span>' : "") + "</td>" +
        '<td class="progress-cell"><div class="progress" title="' + succeeded + " succeeded, " + failed + " failed, " + cancelled + ' cancelled">' +
        '<div class="bar ok" style="width:' + percent(succeeded, total).toFixed(2) + '%"></div>' +
        '<div class="bar bad" style="width:' + percent(failed, total).toFixed(2) + '%"></div>' +
        '<div class="bar cancelled" style="width:' + percent(cancelled, total).toFixed(2) + '%"></div></div>' +
        '<div class="progress-line"><span class="job-progress-text">' + done + "/" + total + "</span>" +
        '<span class="progress-extra">' + extra.join(" · ") + "</span></div></td>" +
        '<td class="num">' + num(j.inFlight) + "</td>" +
        '<td class="num">' + rate(j.photosPerSecond10s) + "</td>" +
        '<td class="num">' + duration(j.elapsedSeconds) + "</td>" +
        "<td>" + viewportText(j) + "</td>";
    }, '<tr class="empty"><td colspan="7">no jobs yet</td></tr>');
  }

  function renderFailures(failures) {
    syncRows($("failures-body"), failures, "data-failure-key", function (f) {
      return f.jobId + "/" + f.index + "/" + f.at;
    }, function (f) {
      return '<td class="mono">' + clock(f.at) + "</td>" +
        '<td><a class="mono" href="/jobs/' + encodeURIComponent(f.jobId) + '">' + esc(f.jobId) + "</a></td>" +
        '<td><span class="muted">#' + num(f.index) + "</span> " + esc(f.name) + "</td>" +
        "<td>" + esc(f.stage) + "</td>" +
        '<td class="reason">' + esc(f.reason) + "</td>";
    }, '<tr class="empty"><td colspan="5">no failures</td></tr>', "failure");
  }

  // ---- charts ------------------------------------------------------------------------------

  // series: [{key, label, color, values: [number], total: bool}], times: [unix seconds]
  function drawChart(canvas, times, series) {
    var ratio = window.devicePixelRatio || 1;
    var width = canvas.clientWidth, height = canvas.clientHeight;
    if (width === 0 || height === 0) return;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    var ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = '11px "DejaVu Sans", Arial, sans-serif';

    var left = 46, right = 14, top = 10, bottom = 24;
    var plotW = width - left - right, plotH = height - top - bottom;

    if (times.length < 2) {
      ctx.fillStyle = "#6b7685";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText("waiting for data…", width / 2, height / 2);
      return;
    }

    var tEnd = times[times.length - 1];
    var span = Math.max(60, tEnd - times[0]);
    var tStart = tEnd - span;
    var maxValue = 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (v > maxValue) maxValue = v; }); });
    var scale = chart.yScale(maxValue * 1.05);
    var yMax = scale.max;
    function x(t) { return left + ((t - tStart) / span) * plotW; }
    function y(v) { return top + plotH - (v / yMax) * plotH; }

    // grid and y labels
    ctx.strokeStyle = "#e6eaf0";
    ctx.lineWidth = 1;
    ctx.fillStyle = "#6b7685";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (var value = 0; value <= yMax + scale.step / 2; value += scale.step) {
      var yy = Math.round(y(value)) + 0.5;
      ctx.beginPath(); ctx.moveTo(left, yy); ctx.lineTo(left + plotW, yy); ctx.stroke();
      ctx.fillText(chart.tickLabel(value), left - 6, yy);
    }
    // x labels, relative to the newest sample
    var step = chart.timeStep(span);
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (var back = 0; back <= span + 0.001; back += step) {
      var xx = Math.round(x(tEnd - back)) + 0.5;
      ctx.strokeStyle = "#f0f2f5";
      ctx.beginPath(); ctx.moveTo(xx, top); ctx.lineTo(xx, top + plotH); ctx.stroke();
      ctx.fillText(chart.relativeLabel(back), Math.min(Math.max(xx, left + 12), left + plotW - 12), top + plotH + 6);
    }
    ctx.strokeStyle = "#c9d0da";
    ctx.beginPath(); ctx.moveTo(left, top + plotH + 0.5); ctx.lineTo(left + plotW, top + plotH + 0.5); ctx.stroke();

    // lines: workers/jobs first, the total on top
    var ordered = series.filter(function (s) { return !s.total; }).concat(series.filter(function (s) { return s.total; }));
    ordered.forEach(function (s) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.total ? 2.5 : 1.6;
      ctx.lineJoin = "round";
      ctx.setLineDash(s.total ? [6, 3] : []);
      ctx.beginPath();
      for (var k = 0; k < times.length; k++) {
        var px = x(times[k]), py = y(s.values[k]);
        if (k === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      }
      ctx.stroke();
    });
    ctx.setLineDash([]);
  }

  function renderLegend(container, series) {
    var html = series.map(function (s) {
      var last = s.values.length ? s.values[s.values.length - 1] : 0;
      return '<span class="item"><span class="swatch' + (s.total ? " total" : "") + '" style="background:' + s.color + '"></span>' +
        esc(s.label) + ' <span class="val">' + rate(last) + "/s</span></span>";
    }).join("");
    if (container._html !== html) { container.innerHTML = html; container._html = html; }
  }

  function seriesFrom(samples, field, prefix, known) {
    var keys = {};
    known.forEach(function (k) { keys[k] = true; });
    samples.forEach(function (s) { Object.keys(s[field] || {}).forEach(function (k) { keys[k] = true; }); });
    return Object.keys(keys).sort().map(function (key) {
      return {
        key: key, label: key, color: colorFor(prefix + key), total: false,
        values: chart.smooth(samples.map(function (s) { return num((s[field] || {})[key]); }))
      };
    });
  }

  function renderCharts(workers, jobs) {
    var samples = (lastHistory && Array.isArray(lastHistory.samples)) ? lastHistory.samples : [];
    var times = samples.map(function (s) { return num(s.t); });
    var total = { key: "total", label: "total", color: TOTAL_COLOR, total: true,
                  values: chart.smooth(samples.map(function (s) { return num(s.photosPerSecond); })) };

    var workerSeries = seriesFrom(samples, "workers", "w:", workers.map(function (w) { return String(w.id); }));
    var all = workerSeries.concat([total]);
    drawChart($("workers-chart"), times, all);
    renderLegend($("workers-legend"), all);

    var jobSeries = seriesFrom(samples, "jobs", "j:", jobs.map(function (j) { return String(j.id); }));
    drawChart($("jobs-chart"), times, jobSeries);
    renderLegend($("jobs-legend"), jobSeries);
  }

  window.addEventListener("resize", function () { if (lastOverview) render(); });
  refresh();
})();
