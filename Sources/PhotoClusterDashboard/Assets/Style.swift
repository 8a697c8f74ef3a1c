// The stylesheet of both pages, served at `/assets/style.css`.
// Kept in Swift so the `cluster` binary serves the dashboard without files beside it.
extension DashboardAssets {
    public static let styleCSS = #"""
/* PhotoCluster dashboard: one stylesheet for the overview and the job page. */
:root {
  --bg: #f3f5f8;
  --panel: #ffffff;
  --ink: #1c2430;
  --muted: #6b7685;
  --line: #e1e6ed;
  --header: #141b26;
  --header-ink: #e8edf4;
  --accent: #3d8bfd;
  --ok: #2f9e5b;
  --warn: #d9822b;
  --bad: #d64545;
  --cell: 150px;
  --gap: 6px;
  --radius: 8px;
  font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif;
  font-size: 14px;
  color: var(--ink);
  background: var(--bg);
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; }
/* The job page drives the viewport from the scroll position: no scrolling by the browser itself. */
html { overflow-anchor: none; }
body { background: var(--bg); min-height: 100vh; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.mono, code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.num { text-align: right; font-variant-numeric: tabular-nums; }

/* ---- header ---- */
.topbar {
  display: flex; align-items: center; gap: 18px;
  background: var(--header); color: var(--header-ink);
  padding: 0 24px; height: 52px;
  box-shadow: 0 1px 0 rgba(0,0,0,.25);
}
.brand { font-weight: bold; font-size: 17px; letter-spacing: .2px; color: #fff; display: flex; align-items: center; gap: 9px; }
.brand:hover { text-decoration: none; }
.brand .logo { width: 18px; height: 18px; border-radius: 4px; background: linear-gradient(135deg, #3d8bfd, #59c36a); display: inline-block; }
.topbar nav { display: flex; gap: 14px; }
.topbar nav a { color: #aab6c6; }
.topbar nav a.current { color: #fff; }
.topbar .spacer { flex: 1; }
.topbar .meta { color: #8d9aab; font-size: 12.5px; }
.live-dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #59c36a; margin-right: 6px; vertical-align: 1px; }
.live-dot.stale { background: var(--bad); }

/* ---- banner ---- */
.banner {
  background: #fdecec; color: #8f1f1f; border-bottom: 1px solid #f3b9b9;
  padding: 9px 24px; font-weight: bold;
}
.banner[hidden] { display: none; }

main { padding: 20px 24px 40px; }

/* ---- cards ---- */
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 14px; margin-bottom: 18px; }
.card {
  background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius);
  padding: 13px 16px; box-shadow: 0 1px 2px rgba(20,27,38,.04);
}
.card h3 { margin: 0 0 6px; font-size: 11.5px; font-weight: bold; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); }
.card .value { font-size: 28px; font-weight: bold; font-variant-numeric: tabular-nums; line-height: 1.15; }
.card .value small { font-size: 13px; font-weight: normal; color: var(--muted); margin-left: 3px; }
.card .sub { color: var(--muted); font-size: 12.5px; margin-top: 3px; font-variant-numeric: tabular-nums; }
.card .sub b { color: var(--ink); }
.stage-list { display: grid; grid-template-columns: auto 1fr; gap: 1px 12px; font-size: 13px; font-variant-numeric: tabular-nums; margin-top: 2px; }
.stage-list dt { color: var(--muted); }
.stage-list dd { margin: 0; text-align: right; font-weight: bold; }

/* ---- panels ---- */
.panel {
  background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius);
  margin-bottom: 18px; box-shadow: 0 1px 2px rgba(20,27,38,.04); overflow: hidden;
}
.panel > h2 {
  margin: 0; padding: 11px 16px; font-size: 14px; border-bottom: 1px solid var(--line);
  display: flex; align-items: baseline; gap: 10px;
}
.panel > h2 .hint { font-weight: normal; color: var(--muted); font-size: 12.5px; }
.panel .body { padding: 12px 16px; }
.row2 { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
@media (max-width: 1000px) { .row2 { grid-template-columns: 1fr; } }

/* ---- charts ---- */
.chart { width: 100%; height: 220px; display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin-top: 8px; font-size: 12.5px; }
.legend .item { display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
.legend .swatch { width: 14px; height: 3px; border-radius: 2px; display: inline-block; }
.legend .swatch.total { height: 4px; }
.legend .val { color: var(--muted); font-variant-numeric: tabular-nums; }

/* ---- tables ---- */
table.data { width: 100%; border-collapse: collapse; }
table.data th, table.data td { padding: 8px 12px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
table.data th { font-size: 11.5px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); background: #f8f9fb; font-weight: bold; }
table.data tbody tr:last-child td { border-bottom: none; }
table.data tbody tr:hover td { background: #f8fafd; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data tr.empty td { color: var(--muted); text-align: center; padding: 16px; font-style: italic; }
.stages { font-size: 12.5px; color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
.stages b { color: var(--ink); font-weight: bold; }
.job-label { display: block; color: var(--muted); font-size: 12px; }
tr.failure td.reason { color: var(--bad); }

/* progress bars */
.progress-cell { min-width: 220px; }
.progress { position: relative; height: 8px; border-radius: 4px; background: #e6eaf0; overflow: hidden; display: flex; }
.progress .bar { height: 100%; }
.progress .bar.ok { background: var(--ok); }
.progress .bar.bad { background: var(--bad); }
.progress .bar.cancelled { background: #a3acb9; }
.progress-line { display: flex; justify-content: space-between; gap: 10px; margin-top: 4px; font-size: 12.5px; font-variant-numeric: tabular-nums; }
.job-progress-text { font-weight: bold; }
.progress-extra .failed { color: var(--bad); }
.progress-extra .cancelled { color: var(--muted); }

/* phase badges */
.badge {
  display: inline-block; padding: 2px 8px; border-radius: 10px; font-size: 11.5px; font-weight: bold;
  background: #e8edf3; color: #445063; white-space: nowrap;
}
.badge.preparation { background: #eef0f4; color: #5b6678; }
.badge.inProgress { background: #e3efff; color: #1f5fbf; }
.badge.willFinish { background: #fff1de; color: #9a5a12; }
.badge.didFinish { background: #e2f5e9; color: #1f7a43; }
.badge.cancelled { background: #f1f1f1; color: #6b6b6b; }
.badge.suspended { background: #fff1de; color: #9a5a12; }

/* ---- job page ---- */
.jobbar {
  position: sticky; top: 0; z-index: 10;
  background: var(--header); color: var(--header-ink);
  box-shadow: 0 2px 6px rgba(0,0,0,.25);
}
.jobbar .topbar { box-shadow: none; border-bottom: 1px solid #243042; }
.jobinfo { display: flex; flex-wrap: nowrap; align-items: center; gap: 10px 28px; padding: 10px 24px 12px; }
@media (max-width: 1100px) { .jobinfo { flex-wrap: wrap; } }
.jobtitle { flex: 1; min-width: 0; }
.jobinfo h1 { margin: 0 0 5px; font-size: 18px; color: #fff; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.jobinfo .jobid { color: #8d9aab; font-size: 12.5px; margin-left: 10px; font-weight: normal; }
.jobinfo .stat { display: flex; flex-direction: column; gap: 2px; flex: none; }
.jobinfo .stat .k { font-size: 10.5px; text-transform: uppercase; letter-spacing: .6px; color: #8d9aab; }
.jobinfo .stat .v { font-size: 14px; font-variant-numeric: tabular-nums; color: #fff; white-space: nowrap; }
.jobinfo .stat.narrow { min-width: 64px; }
.jobinfo .stat.phase-stat { min-width: 96px; }
.jobinfo .stat.progress-stat { width: 210px; }
.jobinfo .stat.progress-stat .v { overflow: hidden; text-overflow: ellipsis; }
.jobinfo .progress { width: 200px; background: #2a3646; margin-top: 3px; }
.jobinfo .badge { font-size: 12px; }
.jobinfo .v.failed { color: #ff8b8b; }
.viewports { display: grid; grid-template-columns: max-content auto; gap: 2px 10px; margin: 0; align-items: baseline; }
.viewports dt { font-size: 10.5px; text-transform: uppercase; letter-spacing: .6px; color: #8d9aab; }
.viewports dd { margin: 0; color: #dfe6ef; font-size: 12.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }

main.gridmain { padding: 16px 24px 40px; }
.grid { display: grid; justify-content: center; grid-template-columns: repeat(auto-fill, var(--cell)); grid-auto-rows: var(--cell); gap: var(--gap); }
.cell {
  width: var(--cell); height: var(--cell); border-radius: 6px; overflow: hidden;
  background: var(--panel); border: 1px solid var(--line);
  display: flex; flex-direction: column;
}
.cell .thumb {
  position: relative; flex: 1; min-height: 0; background: #dde2e9;
  display: flex; align-items: center; justify-content: center; text-align: center;
  color: #7d8795; font-size: 12px; padding: 0; overflow: hidden;
}
.cell .thumb img { width: 100%; height: 100%; object-fit: cover; display: block; }
.cell .caption {
  height: 24px; line-height: 24px; padding: 0 7px; font-size: 11.5px; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; border-top: 1px solid var(--line); background: var(--panel);
}
.cell .caption .idx { color: var(--muted); margin-right: 4px; font-variant-numeric: tabular-nums; }
.cell .thumb .index-mark { font-size: 22px; color: #b9c1cc; font-weight: bold; }
.cell .thumb .note { position: absolute; left: 0; right: 0; bottom: 6px; font-size: 10.5px; color: #6b7685; }
.cell.view-spinner .thumb { background: #e7ecf3; }
.cell.view-failed { border-color: #f0c2c2; }
.cell.view-failed .thumb { background: #fdf0f0; color: var(--bad); padding: 8px; font-size: 12px; word-break: break-word; }
.cell.view-failed .thumb .reason b { display: block; font-size: 11px; text-transform: uppercase; letter-spacing: .5px; margin-bottom: 4px; }
.cell.view-out-of-view { opacity: .55; border-style: dashed; }
.cell.view-out-of-view .thumb { background: repeating-linear-gradient(45deg, #e4e8ee, #e4e8ee 8px, #dce1e8 8px, #dce1e8 16px); color: #66717f; font-style: italic; }
.cell.view-cancelled .thumb { background: #eceef1; color: #66717f; padding: 8px; }
.cell.view-image .thumb { background: #101721; }
.spinner {
  width: 34px; height: 34px; border-radius: 50%;
  border: 4px solid rgba(61,139,253,.2); border-top-color: var(--accent);
  animation: spin .8s linear infinite;
}
@keyframes spin { to { transform: rotate(360deg); } }
.grid-empty { color: var(--muted); padding: 40px 0; text-align: center; font-style: italic; }
"""#
}
