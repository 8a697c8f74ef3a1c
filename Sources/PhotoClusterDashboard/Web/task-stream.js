// PhotoCluster overview page: the task stream. Every stage of every photo as a bar in its
// worker's lanes, coloured by stage, failures and cancellations marked, live over the last
// minute and scrollable back over what the page has kept (15 minutes). Polls /api/tasks for the
// spans after the last it saw; a click on a bar shows the photo, job, worker, stage and times.
(function () {
  "use strict";

  var POLL_MS = 1000;
  var KEEP_MS = 15 * 60 * 1000;
  var KEEP_SPANS = 60000;
  var LANE_PX = 14;
  var LANE_GAP_PX = 2;
  var WORKER_GAP_PX = 8;
  var AXIS_PX = 18;
  var GUTTER_PX = 120;
  var MAX_LANES = 16;
  var MAX_WORKERS = 64;
  var COLORS = { download: "#3d8bfd", decode: "#2f9e5b", filter: "#8e6bd8", encode: "#f08c2e", write: "#1fa8a8", other: "#7a8594" };
  var FAILED = "#d64545";

  var api = window.PhotoClusterAPI;
  var math = window.PhotoClusterTaskMath;
  var canvas = document.getElementById("task-stream");
  if (!canvas || !api || !math) return;
  var details = document.getElementById("task-details");
  var status = document.getElementById("task-stream-status");

  var spans = [];
  var sequence = 0;
  var clockOffset = 0;       // the coordinator's clock minus this browser's, ms
  var view = { end: 0, width: 60000 };
  var live = true;
  var rows = [];             // laid out by draw(): { y, height, spans } per worker lane
  var selected = null;
  var dragging = null;

  function now() { return Date.now() + clockOffset; }

  function poll() {
    api.getJSON("/api/tasks?after=" + sequence)
      .then(function (page) {
        clockOffset = page.now * 1000 - Date.now();
        if (page.sequence < sequence) spans = [];  // the coordinator restarted
        sequence = page.sequence;
        spans = math.merge(spans, page.spans || [], now() - KEEP_MS, KEEP_SPANS);
        status.textContent = page.capacity === 0
          ? "off on this coordinator (--task-stream-spans 0)"
          : spans.length + " stages kept here · coordinator keeps the last " + page.capacity;
        draw();
      })
      .catch(function () { status.textContent = "coordinator not reachable — retrying"; })
      .finally(function () { setTimeout(poll, POLL_MS); });
  }

  function draw() {
    if (live) view.end = now();
    var shown = spans.filter(function (span) { return math.visible(span, view); });
    var workers = math.layout(shown).slice(0, MAX_WORKERS);
    var width = canvas.clientWidth || 800;
    var height = AXIS_PX;
    workers.forEach(function (w) { height += Math.min(w.lanes, MAX_LANES) * (LANE_PX + LANE_GAP_PX) + WORKER_GAP_PX; });
    height = Math.max(height, 60);
    var ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.height = height + "px";
    var g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    var plot = width - GUTTER_PX - 8;

    drawAxis(g, plot, height);
    rows = [];
    var y = AXIS_PX;
    var summary = {};
    workers.forEach(function (w) {
      var lanes = Math.min(w.lanes, MAX_LANES);
      var top = y;
      var laneSpans = [];
      for (var i = 0; i < lanes; i++) laneSpans.push([]);
      summary[w.worker] = { lanes: w.lanes, stages: {} };
      w.placed.forEach(function (p) {
        var lane = Math.min(p.lane, MAX_LANES - 1);
        laneSpans[lane].push(p.span);
        var stages = summary[w.worker].stages;
        stages[p.span.stage] = (stages[p.span.stage] || 0) + 1;
      });
      g.fillStyle = "#1c2430";
      g.font = "12px sans-serif";
      g.fillText(w.worker, 6, top + 11);
      g.fillStyle = "#7a8594";
      g.font = "10px sans-serif";
      g.fillText(w.lanes + (w.lanes === 1 ? " lane" : " lanes"), 6, top + 24);
      laneSpans.forEach(function (list, lane) {
        var rowY = top + lane * (LANE_PX + LANE_GAP_PX);
        g.fillStyle = lane % 2 ? "#f6f8fa" : "#eef1f5";
        g.fillRect(GUTTER_PX, rowY, plot, LANE_PX);
        var bars = [];
        list.forEach(function (span) {
          var box = drawBar(g, span, rowY, plot);
          if (box && bars.length < 5) bars.push({ x: (box.left + box.right) / 2, y: rowY + LANE_PX / 2, name: span.name });
        });
        rows.push({ y: rowY, height: LANE_PX + LANE_GAP_PX, spans: list, worker: w.worker, lane: lane, bars: bars });
      });
      y = top + lanes * (LANE_PX + LANE_GAP_PX) + WORKER_GAP_PX;
    });
    if (workers.length === 0) {
      g.fillStyle = "#7a8594";
      g.font = "12px sans-serif";
      g.fillText(live ? "no stages in the last " + Math.round(view.width / 1000) + " s" : "no stages in this window", GUTTER_PX + 8, AXIS_PX + 20);
    }
    canvas.dataset.live = String(live);
    // What was drawn, for tests and for anyone poking at the page: lanes and stages per worker,
    // and the centre of a few bars of each row (canvas pixels).
    window.photoclusterTaskStream = { workers: summary, kept: spans.length, shown: shown.length, live: live, selected: selected };
    window.photoclusterTaskStreamRows = rows.map(function (r) { return { worker: r.worker, lane: r.lane, bars: r.bars }; });
  }

  function drawAxis(g, plot, height) {
    var start = view.end - view.width;
    var step = math.timeStep(view.width, 6);
    g.font = "10px sans-serif";
    for (var t = Math.ceil(start / step) * step; t <= view.end; t += step) {
      var x = math.xOf(t, view, GUTTER_PX, plot);
      g.strokeStyle = "#dde3ea";
      g.beginPath();
      g.moveTo(x + 0.5, AXIS_PX - 4);
      g.lineTo(x + 0.5, height);
      g.stroke();
      g.fillStyle = "#7a8594";
      g.fillText(clock(t), x + 2, 10);
    }
  }

  function drawBar(g, span, rowY, plot) {
    var left = math.xOf(span.start, view, GUTTER_PX, plot);
    var right = Math.max(left + math.MIN_BAR_PX, math.xOf(span.start + span.duration, view, GUTTER_PX, plot));
    left = Math.max(left, GUTTER_PX);
    right = Math.min(right, GUTTER_PX + plot);
    if (right <= left) return null;
    g.globalAlpha = span.outcome === "cancelled" ? 0.35 : span.fused ? 0.7 : 1;
    g.fillStyle = COLORS[math.stageOf(span)];
    g.fillRect(left, rowY + 1, right - left, LANE_PX - 2);
    g.globalAlpha = 1;
    if (span.outcome === "failed") {
      g.strokeStyle = FAILED;
      g.lineWidth = 2;
      g.strokeRect(left + 1, rowY + 1, Math.max(1, right - left - 2), LANE_PX - 2);
      g.lineWidth = 1;
    } else if (span.outcome === "cancelled") {
      g.strokeStyle = "#1c2430";
      g.setLineDash([2, 2]);
      g.strokeRect(left + 0.5, rowY + 1.5, Math.max(1, right - left - 1), LANE_PX - 3);
      g.setLineDash([]);
    }
    if (selected && selected.span === span) {
      g.strokeStyle = "#1c2430";
      g.lineWidth = 2;
      g.strokeRect(left - 1, rowY, right - left + 2, LANE_PX);
      g.lineWidth = 1;
    }
    return { left: left, right: right };
  }

  function clock(ms) {
    var d = new Date(ms);
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }

  function milliseconds(value) { return value < 1 ? value.toFixed(2) + " ms" : value < 1000 ? value.toFixed(1) + " ms" : (value / 1000).toFixed(2) + " s"; }

  function show(span) {
    if (!span) {
      selected = null;
      details.hidden = true;
      return;
    }
    selected = { span: span, worker: span.worker, job: span.job, photo: span.photo, name: span.name };
    details.hidden = false;
    var fields = [
      ["Photo", (span.photoName || "#" + span.photo) + " (index " + span.photo + ", attempt " + span.attempt + ")"],
      ["Job", span.job], ["Worker", span.worker],
      ["Stage", span.name + (span.fused ? " (run inside the encode)" : "")],
      ["Started", clock(span.start) + "." + String(Math.floor(span.start % 1000)).padStart(3, "0")],
      ["Took", milliseconds(span.duration)], ["Outcome", span.outcome],
    ];
    details.textContent = "";
    fields.forEach(function (field) {
      var dt = document.createElement("dt");
      dt.textContent = field[0];
      var dd = document.createElement("dd");
      if (field[0] === "Job") {
        var a = document.createElement("a");
        a.href = "/jobs/" + encodeURIComponent(span.job);
        a.textContent = span.job;
        dd.appendChild(a);
      } else {
        dd.textContent = field[1];
      }
      details.appendChild(dt);
      details.appendChild(dd);
    });
  }

  function pointer(event) {
    var box = canvas.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  // Live: the view follows "now"; paused, it stays where it is (a click on a bar pauses it, so
  // the bar stays under the pointer).
  function setLive(on) {
    live = on;
    var button = document.getElementById("task-live");
    button.textContent = on ? "Pause" : "Live";
    button.title = on ? "Stop following now" : "Follow now again";
    draw();
  }

  function pan(deltaMs) {
    var latest = now();
    view.end = Math.min(latest, Math.max(latest - KEEP_MS + view.width, view.end + deltaMs));
    setLive(view.end >= latest - 1);
  }

  canvas.addEventListener("click", function (event) {
    if (dragging && dragging.moved) return;
    var p = pointer(event);
    var plot = (canvas.clientWidth || 800) - GUTTER_PX - 8;
    var span = math.hit(rows, view, GUTTER_PX, plot, p.x, p.y);
    show(span);
    if (span && live) setLive(false);
    else draw();
  });
  canvas.addEventListener("mousedown", function (event) { dragging = { x: event.clientX, end: view.end, moved: false }; });
  window.addEventListener("mouseup", function () { setTimeout(function () { dragging = null; }, 0); });
  window.addEventListener("mousemove", function (event) {
    if (!dragging) return;
    var dx = event.clientX - dragging.x;
    if (Math.abs(dx) > 3) dragging.moved = true;
    if (!dragging.moved) return;
    var plot = (canvas.clientWidth || 800) - GUTTER_PX - 8;
    view.end = dragging.end;
    pan((-dx / plot) * view.width);
  });
  canvas.addEventListener("wheel", function (event) {
    if (Math.abs(event.deltaX) < 1 && !event.shiftKey) return;  // vertical scrolling scrolls the page
    event.preventDefault();
    pan(((event.deltaX || event.deltaY) / 400) * view.width);
  }, { passive: false });
  document.getElementById("task-back").addEventListener("click", function () { pan(-view.width / 2); });
  document.getElementById("task-forward").addEventListener("click", function () { pan(view.width / 2); });
  document.getElementById("task-live").addEventListener("click", function () { setLive(!live); });
  document.getElementById("task-window").addEventListener("change", function (event) {
    view.width = Number(event.target.value) * 1000;
    draw();
  });

  setInterval(function () { if (live) draw(); }, 250);
  setLive(true);
  poll();
})();
