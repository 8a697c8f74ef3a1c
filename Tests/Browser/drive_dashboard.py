#!/usr/bin/env python3
"""Drives the coordinator's dashboard in headless Chromium, as an operator would, and checks it.

    drive_dashboard.py --base http://127.0.0.1:PORT [--token TOKEN] --job JOB_ID --screenshots DIR [--timeout 60]

With --token, the dashboard is first opened as the coordinator prints it (/?token=TOKEN): the token
must leave the address and stay out of reach of the page's scripts (an HttpOnly cookie).

(a) the overview at / shows the job with at least one photo done (its "done/total" text);
(b) the job page /jobs/JOB shows its cells, has posted its first viewport (to the HTTP API,
    POST /v1/jobs/JOB/viewport, with the dashboard's cookie) and shows a done photo's thumbnail
    (GET /v1/jobs/JOB/photos/NAME/output);
(c) scrolling like a user: the page reports the viewport as not settled while the wheel turns,
    and once scrolled to the last row and stopped, a settled viewport that the coordinator
    accepted (HTTP 200) and reports back with a visible start past 0;
(d) no page broke the Content-Security-Policy (the browser console names every violation);
(e) prints one JSON line: {"overviewProgress", "viewport", "reportedViewport", "thumbnail",
    "tokenInAddress", "tokenVisibleToScripts", "screenshots"}.

Screenshots: DIR/overview.png, DIR/job-top.png, DIR/job-scrolled.png. Exit status 0 when every
step passed; 1 with the step, what was expected and what was seen on stderr otherwise.

Uses Debian's chromium and chromium-driver and Selenium from the virtual environment that
scripts/install-test-tools makes (.build-test-tools/venv); run with that environment's python,
or with any python3, which then moves into that environment when Selenium is missing.
"""
import argparse
import json
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_PYTHON = os.path.join(ROOT, ".build-test-tools", "venv", "bin", "python")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
except ImportError:
    if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(VENV_PYTHON):
        os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
    sys.exit("drive_dashboard: Selenium is not installed; run scripts/install-test-tools")


class StepFailed(Exception):
    pass


def log(message):
    print(f"drive_dashboard: {message}", file=sys.stderr, flush=True)


def wait_for(step, expected, probe, timeout, interval=0.1):
    """Polls probe() -> (ok, seen) until ok or the timeout; raises StepFailed with what was seen."""
    deadline = time.monotonic() + timeout
    seen = None
    while True:
        try:
            ok, seen = probe()
        except WebDriverException as error:
            ok, seen = False, f"browser error: {error.msg or error}"
        if ok:
            return seen
        if time.monotonic() >= deadline:
            raise StepFailed(f"step {step}: timed out after {timeout:.0f} s waiting for {expected}; saw {seen}")
        time.sleep(interval)


def make_driver():
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise StepFailed(f"setup: {path} is missing (Debian's chromium and chromium-driver; run scripts/install-test-tools)")
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager reach out
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--disable-extensions", "--no-first-run", "--disable-background-networking"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def save_full_page(driver, path):
    """The whole page, not only the window (the overview is taller than 900 px)."""
    try:
        import base64
        metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    except (WebDriverException, KeyError):
        driver.save_screenshot(path)


def save(driver, path, full_page=False):
    if full_page:
        save_full_page(driver, path)
    elif not driver.save_screenshot(path):
        raise StepFailed(f"screenshot: could not write {path}")
    log(f"saved {path}")
    return path


def run(args):
    base = args.base.rstrip("/")
    job = args.job
    os.makedirs(args.screenshots, exist_ok=True)
    shots = []
    driver = make_driver()
    try:
        driver.set_page_load_timeout(args.timeout)
        driver.set_script_timeout(args.timeout)

        # (a) the overview shows the job with at least one photo done, opened from the printed URL.
        driver.get(base + "/" + (f"?token={args.token}" if args.token else ""))
        token_in_address = bool(args.token) and args.token in driver.current_url
        token_visible = bool(args.token) and bool(driver.execute_script("return document.cookie.indexOf(arguments[0]) >= 0;", args.token))
        selector = f'tr[data-job-id="{job}"] .job-progress-text'

        def overview_progress():
            text = driver.execute_script(
                "var e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector)
            if text is None:
                banner = driver.execute_script(
                    "var b = document.getElementById('coordinator-banner'); return b && !b.hidden ? b.textContent : null;")
                return False, f"no {selector} on the page" + (f" (banner: {banner})" if banner else "")
            m = re.fullmatch(r"(\d+)/(\d+)", text)
            return bool(m and int(m.group(1)) >= 1), repr(text)

        seen = wait_for("(a) overview", f'{selector} to read "DONE/TOTAL" with DONE >= 1', overview_progress, args.timeout)
        progress = seen.strip("'\"")
        time.sleep(1.2)  # one more refresh, so the charts have drawn
        shots.append(save(driver, os.path.join(args.screenshots, "overview.png"), full_page=True))

        # (b) the job page: cells, and the first viewport posted.
        driver.get(f"{base}/jobs/{job}")

        def job_page_ready():
            state = driver.execute_script(
                "return {cells: document.querySelectorAll('.cell').length,"
                " viewport: window.photoclusterViewport || null, phase: document.body.dataset.jobPhase || null};")
            sent = (state["viewport"] or {}).get("sent") or 0
            return state["cells"] > 0 and sent >= 1, json.dumps(state)

        wait_for("(b) job page", "cells and window.photoclusterViewport.sent >= 1", job_page_ready, args.timeout)

        def thumbnail_shown():
            src = driver.execute_script(
                "var i = Array.from(document.querySelectorAll('.cell img')).find(function (e) {"
                " return e.complete && e.naturalWidth > 0; }); return i ? i.getAttribute('src') : null;")
            return src is not None, src

        thumbnail = wait_for("(b) job page", "a done photo's thumbnail loaded", thumbnail_shown, args.timeout)
        shots.append(save(driver, os.path.join(args.screenshots, "job-top.png")))

        # (c) scroll like a user, then stop at the last row.
        unsettled_seen = False
        settled_values = []
        for _ in range(10):
            driver.execute_script("window.scrollBy(0, 300);")
            time.sleep(0.08)
            value = driver.execute_script("return document.body.dataset.viewportSettled;")
            settled_values.append(value)
            unsettled_seen = unsettled_seen or value == "false"
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight);")
        time.sleep(0.05)
        value = driver.execute_script("return document.body.dataset.viewportSettled;")
        settled_values.append(value)
        unsettled_seen = unsettled_seen or value == "false"
        if not unsettled_seen:
            raise StepFailed("step (c) scrolling: expected body.dataset.viewportSettled == \"false\" at least once "
                             f"while scrolling; saw {settled_values}")

        def settled():
            state = driver.execute_script(
                "var r = document.getElementById('viewport-reported');"
                "return {settled: document.body.dataset.viewportSettled, phase: document.body.dataset.jobPhase || null,"
                " reported: r ? r.textContent : null, viewport: window.photoclusterViewport || null,"
                " scrollY: window.scrollY};")
            if state["phase"] in ("didFinish", "cancelled"):
                raise StepFailed("step (c) settle: the job is " + state["phase"] + ", so the page posts no viewport "
                                 "any more; give the test a job that is still running (seen: " + json.dumps(state) + ")")
            m = re.search(r"visible (\d+)\s*[–-]\s*(\d+)", state["reported"] or "")
            ok = state["settled"] == "true" and m is not None and int(m.group(1)) > 0
            return ok, json.dumps(state, ensure_ascii=False)

        wait_for("(c) settle", 'body.dataset.viewportSettled == "true" and #viewport-reported with a visible start > 0',
                 settled, args.timeout)
        # The thumbnails of the rows now on screen, for the screenshot: at most 1.5 s for them.
        images_loaded = ("return Array.from(document.querySelectorAll('.cell img')).filter(function (i) {"
                         " var r = i.getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight; })"
                         ".every(function (i) { return i.complete; });")
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and not driver.execute_script(images_loaded):
            time.sleep(0.05)
        shots.append(save(driver, os.path.join(args.screenshots, "job-scrolled.png")))

        # (d) nothing the pages do breaks the Content-Security-Policy.
        violations = [entry.get("message", "") for entry in driver.get_log("browser") if "Content Security Policy" in entry.get("message", "")]
        if violations:
            raise StepFailed("step (d): the pages broke the Content-Security-Policy: " + " | ".join(violations[:5]))

        # (e) the result.
        viewport = driver.execute_script("return window.photoclusterViewport;")
        reported = driver.execute_script("return document.getElementById('viewport-reported').textContent;")
        if viewport.get("lastStatus") != 200 or viewport.get("scrolling") is not False:
            raise StepFailed("step (e): expected the last viewport POST to be settled (scrolling false) and answered 200; "
                             f"saw {json.dumps(viewport)}")
        print(json.dumps({"overviewProgress": progress, "viewport": viewport, "reportedViewport": reported, "thumbnail": thumbnail,
                          "tokenInAddress": token_in_address, "tokenVisibleToScripts": token_visible,
                          "screenshots": shots}, ensure_ascii=False), flush=True)
    except StepFailed:
        dump_console(driver)
        raise
    finally:
        driver.quit()


def dump_console(driver):
    try:
        for entry in driver.get_log("browser")[-20:]:
            log(f"console {entry.get('level')}: {entry.get('message')}")
    except Exception:  # noqa: BLE001 - diagnostics only
        pass


def main():
    parser = argparse.ArgumentParser(description="Drive the PhotoCluster dashboard in headless Chromium.")
    parser.add_argument("--base", required=True, help="the coordinator's HTTP address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", help="the dashboard's token, when the coordinator uses CURVE keys")
    parser.add_argument("--job", required=True, help="the id of a job that is still running")
    parser.add_argument("--screenshots", required=True, help="the folder to write the screenshots to")
    parser.add_argument("--timeout", type=float, default=60, help="seconds each step may wait (default 60)")
    return run_reporting(run, parser.parse_args())


def run_reporting(steps, args):
    """Runs steps(args); 0 when every step passed, 1 with what failed on stderr otherwise."""
    try:
        steps(args)
    except StepFailed as failure:
        log(str(failure))
        return 1
    except WebDriverException as error:
        log(f"browser error: {error.msg or error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
