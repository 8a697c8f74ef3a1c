// The job page, served at `/jobs/{id}` (the script reads the id from the path): the table of photos.
// Kept in Swift so the `cluster` binary serves the dashboard without files beside it.
extension DashboardAssets {
    public static let jobHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PhotoCluster — job</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/style.css">
</head>
<body class="job-page" data-viewport-settled="false">
<div class="jobbar" id="jobbar">
  <header class="topbar">
    <a class="brand" href="/"><span class="logo"></span>PhotoCluster</a>
    <nav><a id="back-link" href="/">← Overview</a></nav>
    <span class="spacer"></span>
    <span class="meta"><span id="live-dot" class="live-dot stale"></span><span id="poll-status">connecting…</span></span>
  </header>
  <div class="jobinfo">
    <div class="jobtitle">
      <h1><span id="job-title">Job</span><span class="jobid mono" id="job-id"></span></h1>
      <dl class="viewports" title="visible photo indexes and the prefetch margin">
        <dt>Coordinator viewport</dt><dd class="mono" id="viewport-reported">–</dd>
        <dt>This view</dt><dd class="mono" id="viewport-local">–</dd>
      </dl>
    </div>
    <div class="stat progress-stat">
      <span class="k">Progress</span>
      <span class="v"><span id="job-progress">–</span> <span class="muted" id="job-progress-extra"></span></span>
      <div class="progress"><div class="bar ok" id="job-bar-ok" style="width:0%"></div><div class="bar bad" id="job-bar-bad" style="width:0%"></div><div class="bar cancelled" id="job-bar-cancelled" style="width:0%"></div></div>
    </div>
    <div class="stat phase-stat"><span class="k">Phase</span><span class="v"><span class="badge" id="job-phase">–</span></span></div>
    <div class="stat narrow"><span class="k">In flight</span><span class="v" id="job-in-flight">–</span></div>
    <div class="stat narrow"><span class="k">Photos/s</span><span class="v" id="job-rate">–</span></div>
    <div class="stat narrow"><span class="k">Failed</span><span class="v failed" id="job-failed">–</span></div>
  </div>
  <div id="coordinator-banner" class="banner" role="alert" hidden>coordinator not reachable — retrying</div>
</div>
<main class="gridmain">
  <div id="grid" class="grid" aria-label="photos"></div>
  <div id="grid-empty" class="grid-empty" hidden>no photos yet</div>
</main>
<script src="/assets/job.js"></script>
</body>
</html>
"""#
}
