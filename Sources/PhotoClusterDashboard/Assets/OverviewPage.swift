// The overview page, served at `/`: cluster cards, workers, jobs, throughput charts, recent failures.
// Kept in Swift so the `cluster` binary serves the dashboard without files beside it.
extension DashboardAssets {
    public static let overviewHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PhotoCluster — overview</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/style.css">
</head>
<body class="overview-page">
<header class="topbar">
  <a class="brand" href="/"><span class="logo"></span>PhotoCluster</a>
  <nav><a class="current" href="/">Overview</a></nav>
  <span class="spacer"></span>
  <span class="meta"><span id="live-dot" class="live-dot stale"></span><span id="coordinator-id">connecting…</span></span>
  <span class="meta" id="uptime"></span>
</header>
<div id="coordinator-banner" class="banner" role="alert" hidden>coordinator not reachable — retrying</div>
<main>
  <section class="cards">
    <div class="card">
      <h3>Workers connected</h3>
      <div class="value" id="workers-connected">–</div>
      <div class="sub">concurrency <b id="workers-concurrency">–</b> · in flight <b id="workers-in-flight">–</b></div>
    </div>
    <div class="card">
      <h3>Photos / s</h3>
      <div class="value"><span id="photos-per-second-10s">–</span><small>10 s</small></div>
      <div class="sub"><b id="photos-per-second-60s">–</b> over 1 min</div>
    </div>
    <div class="card">
      <h3>Megapixels / s</h3>
      <div class="value"><span id="megapixels-per-second-10s">–</span><small>10 s</small></div>
      <div class="sub"><b id="megapixels-per-second-60s">–</b> over 1 min</div>
    </div>
    <div class="card">
      <h3>Queued at coordinator</h3>
      <div class="value" id="queued-coordinator">–</div>
      <div class="sub">photos waiting for a worker</div>
    </div>
    <div class="card">
      <h3>On workers, per stage</h3>
      <dl class="stage-list">
        <dt>download</dt><dd id="queue-download">–</dd>
        <dt>decode</dt><dd id="queue-decode">–</dd>
        <dt>filter</dt><dd id="queue-filter">–</dd>
        <dt>encode</dt><dd id="queue-encode">–</dd>
      </dl>
    </div>
  </section>

  <section class="panel">
    <h2>Throughput per worker <span class="hint">photos/s, 5 s average, last 10 minutes</span></h2>
    <div class="body">
      <canvas id="workers-chart" class="chart"></canvas>
      <div id="workers-legend" class="legend"></div>
    </div>
  </section>

  <section class="panel">
    <h2>Workers <span class="hint" id="workers-count"></span></h2>
    <table class="data" id="workers-table">
      <thead><tr>
        <th>Worker</th><th>Host</th><th class="num">Concurrency</th><th class="num">In flight</th>
        <th class="num">Completed</th><th class="num">Photos/s 10 s</th><th class="num">Photos/s 1 min</th><th>Stages</th>
      </tr></thead>
      <tbody id="workers-body"><tr class="empty"><td colspan="8">waiting for the coordinator…</td></tr></tbody>
    </table>
  </section>

  <section class="panel">
    <h2>Jobs <span class="hint" id="jobs-count"></span></h2>
    <table class="data" id="jobs-table">
      <thead><tr>
        <th>Job</th><th>Phase</th><th class="progress-cell">Progress</th><th class="num">In flight</th>
        <th class="num">Photos/s</th><th class="num">Elapsed</th><th>Viewport</th>
      </tr></thead>
      <tbody id="jobs-body"><tr class="empty"><td colspan="7">waiting for the coordinator…</td></tr></tbody>
    </table>
  </section>

  <section class="panel">
    <h2>Throughput per job <span class="hint">photos/s settled, 5 s average</span></h2>
    <div class="body">
      <canvas id="jobs-chart" class="chart"></canvas>
      <div id="jobs-legend" class="legend"></div>
    </div>
  </section>

  <section class="panel">
    <h2>Recent failures <span class="hint">newest first</span></h2>
    <table class="data" id="failures-table">
      <thead><tr><th>Time</th><th>Job</th><th>Photo</th><th>Stage</th><th>Reason</th></tr></thead>
      <tbody id="failures-body"><tr class="empty"><td colspan="5">no failures</td></tr></tbody>
    </table>
  </section>
</main>
<script src="/assets/dashboard.js"></script>
</body>
</html>
"""#
}
