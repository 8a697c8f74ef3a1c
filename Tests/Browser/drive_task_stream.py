#!/usr/bin/env python3
"""Opens the dashboard's task stream in headless Chromium, as an operator would, and checks it.

    drive_task_stream.py --base http://127.0.0.1:PORT [--token TOKEN] --workers w1,w2 \
        --stages download,decode,filter,encode --screenshots DIR [--window 30] [--timeout 60]

(a) the overview's task stream shows a lane for each worker in --workers, with bars of every
    stage in --stages (the page's window.photoclusterTaskStream says what it drew);
(b) a click on a bar of each worker shows that bar's photo, job, worker, stage and times in
    #task-details;
(c) no page broke the Content-Security-Policy;
(d) prints one JSON line: {"workers", "selected", "screenshot"}.

Screenshot: DIR/task-stream.png (the panel). Exit status 0 when every step passed; 1 with the
step, what was expected and what was seen on stderr otherwise. Runs like drive_dashboard.py
(Debian's chromium and chromium-driver, Selenium from .build-test-tools/venv).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from drive_dashboard import StepFailed, dump_console, log, make_driver, run_reporting, wait_for  # noqa: E402

from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402


def run(args):
    workers = [w for w in args.workers.split(",") if w]
    stages = [s for s in args.stages.split(",") if s]
    os.makedirs(args.screenshots, exist_ok=True)
    driver = make_driver()
    try:
        driver.set_page_load_timeout(args.timeout)
        driver.set_script_timeout(args.timeout)
        driver.get(args.base.rstrip("/") + "/" + (f"?token={args.token}" if args.token else ""))

        # (a) a lane per worker, with bars of every stage.
        def lanes_drawn():
            state = driver.execute_script("return window.photoclusterTaskStream || null;")
            if not state:
                return False, "no window.photoclusterTaskStream yet"
            drawn = state.get("workers") or {}
            missing = {w: [s for s in stages if not (drawn.get(w) or {}).get("stages", {}).get(s)] for w in workers}
            missing = {w: m for w, m in missing.items() if m}
            return not missing, json.dumps({"drawn": drawn, "missing": missing})

        seen = wait_for("(a) lanes", f"lanes of {workers} with bars of {stages}", lanes_drawn, args.timeout)
        drawn = json.loads(seen)["drawn"]
        for worker in workers:
            if drawn[worker]["lanes"] < 1:
                raise StepFailed(f"step (a): worker {worker} has no lane: {seen}")

        # The window the screenshot shows (bars of a few milliseconds are slivers in a minute).
        Select(driver.find_element(By.ID, "task-window")).select_by_value(str(args.window))
        wait_for("(a) window", f"a {args.window} s window with every worker's bars still in it", lanes_drawn, 10)

        # (b) a click on a bar of each worker shows its details. Paused first, so the bars stay
        # where they were drawn.
        driver.find_element(By.ID, "task-live").click()
        wait_for("(b) pause", "the stream to stop following now",
                 lambda: (driver.execute_script("return window.photoclusterTaskStream.live;") is False, "still live"), 5)
        driver.execute_script("document.getElementById('task-stream').scrollIntoView({block: 'center'});")
        selected = {}
        for worker in workers:
            def click_first_bar():
                # The bar's centre in the window's coordinates, where the pointer goes.
                target = driver.execute_script(
                    "var box = document.getElementById('task-stream').getBoundingClientRect();"
                    "var s = window.photoclusterTaskStreamRows || []; var w = arguments[0];"
                    "for (var i = 0; i < s.length; i++) { if (s[i].worker !== w || !s[i].bars.length) continue;"
                    " var b = s[i].bars[0]; return {x: box.left + b.x, y: box.top + b.y}; }"
                    "return null;", worker)
                if not target:
                    raise StepFailed(f"step (b): no bar of worker {worker} to click (rows: "
                                     f"{driver.execute_script('return window.photoclusterTaskStreamRows;')})")
                actions = ActionBuilder(driver)
                actions.pointer_action.move_to_location(int(target["x"]), int(target["y"]))
                actions.pointer_action.click()
                actions.perform()

            def shown():
                state = driver.execute_script(
                    "var d = document.getElementById('task-details');"
                    "return {hidden: d.hidden, text: d.textContent, selected: (window.photoclusterTaskStream || {}).selected || null};")
                sel = state["selected"] or {}
                ok = (not state["hidden"]) and sel.get("worker") == worker and sel.get("job", "") in state["text"] \
                    and worker in state["text"] and sel.get("name", "") in state["text"]
                return ok, json.dumps(state, ensure_ascii=False)

            # The lanes are live: a redraw between reading a bar's place and the click (a busy
            # host) can put another worker's bar under the pointer, so a missed click is aimed again.
            for attempt in range(3):
                click_first_bar()
                try:
                    state = json.loads(wait_for("(b) details", f"#task-details naming a bar of worker {worker}", shown, 4 if attempt < 2 else 10))
                    break
                except StepFailed:
                    if attempt == 2:
                        raise
                    log(f"step (b): the click missed worker {worker}'s bar; aiming again")
            selected[worker] = {key: state["selected"][key] for key in ("worker", "job", "photo", "name")}
            selected[worker]["text"] = state["text"]

        panel = driver.find_element(By.ID, "task-stream-panel")
        driver.execute_script("arguments[0].scrollIntoView();", panel)
        time.sleep(0.3)
        shot = os.path.join(args.screenshots, "task-stream.png")
        if not panel.screenshot(shot):
            raise StepFailed(f"screenshot: could not write {shot}")
        log(f"saved {shot}")

        # (c) nothing broke the Content-Security-Policy.
        violations = [e.get("message", "") for e in driver.get_log("browser") if "Content Security Policy" in e.get("message", "")]
        if violations:
            raise StepFailed("step (c): the page broke the Content-Security-Policy: " + " | ".join(violations[:5]))

        print(json.dumps({"workers": drawn, "selected": selected, "screenshot": shot}, ensure_ascii=False), flush=True)
    except StepFailed:
        dump_console(driver)
        raise
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description="Check the dashboard's task stream in headless Chromium.")
    parser.add_argument("--base", required=True, help="the coordinator's HTTP address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", help="the dashboard's token, when the coordinator uses CURVE keys")
    parser.add_argument("--workers", required=True, help="comma-separated worker ids that must each have a lane")
    parser.add_argument("--stages", default="download,decode,filter,encode", help="stages each worker must show bars of")
    parser.add_argument("--screenshots", required=True, help="the folder to write the screenshot to")
    parser.add_argument("--window", type=int, choices=[10, 30, 60, 300], default=30, help="seconds the stream shows (default 30)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds each step may wait (default 60)")
    return run_reporting(run, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
