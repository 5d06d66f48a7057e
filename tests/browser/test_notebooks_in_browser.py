"""Every chapter as a learner uses it: JupyterLab in a real Chromium.

For each notebook: open it, Run All, find no error output, move the first
slider of the chapter's live panel (``kubenotes-control``) with the keyboard
and see the live output (``kubenotes-live-output``) change, and save a
screenshot under ``test-output/screenshots/``.

Runs whenever Debian's Chromium is installed; in CI (``CI`` set) a missing
Chromium is a failure, not a skip. Browsers are never downloaded: Playwright
drives ``/usr/bin/chromium``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
CHROMIUM = os.environ.get("KUBENOTES_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]

pytestmark = pytest.mark.browser

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"browser tests are required in CI but {CHROMIUM} is missing (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium); browser tests skipped", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none", "autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A fresh JupyterLab on loopback serving a temporary copy of notebooks/ and data/."""
    tmp = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", tmp / "notebooks")
    shutil.copytree(ROOT / "data", tmp / "data")
    for rel, value in SETTINGS.items():
        f = tmp / "settings" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(value))
    port = _free_port()
    env = dict(os.environ, KUBENOTES_DATA=str(tmp / "data"), JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    env.pop("MPLBACKEND", None)
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(port),
           "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={tmp / 'notebooks'}",
           "--LabApp.expose_app_in_browser=True", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--ServerApp.port_retries=0"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp / "lab.log", "w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (tmp / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


KERNEL_READY = """(path) => {
  const app = window.jupyterapp; if (!app) return false;
  const w = app.shell.currentWidget; if (!w || !w.sessionContext || !w.context || w.context.path !== path) return false;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle' && w.content && w.content.widgets.length > 0;
}"""

ALL_RAN = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const k = w.sessionContext.session.kernel;
  const code = w.content.widgets.filter(c => c.model.type === 'code');
  const skipped = c => { const t = c.model.getMetadata ? (c.model.getMetadata('tags') || []) : []; return t.includes('skip-execution'); };
  return k.status === 'idle' && code.every(c => skipped(c) || c.model.executionCount !== null);
}"""

ERRORS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const errs = [];
  w.content.widgets.forEach((c, i) => {
    if (c.model.type !== 'code') return;
    const tags = c.model.getMetadata ? (c.model.getMetadata('tags') || []) : [];
    if (tags.includes('raises-exception')) return;
    const outs = c.model.outputs.toJSON();
    outs.forEach(o => { if (o.output_type === 'error') errs.push(`cell ${i}: ${o.ename}: ${o.evalue}`); });
  });
  document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').forEach(e => {
    if (e.textContent.includes('Traceback')) errs.push('stderr traceback: ' + e.textContent.slice(0, 300));
  });
  return errs;
}"""


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_chapter_runs_and_its_slider_changes_the_output(lab, browser, notebook):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        # A workspace of its own per notebook (?reset): tabs of earlier tests must not be restored.
        workspace = Path(notebook).stem.replace(".", "-")
        page.goto(f"{lab}/lab/workspaces/{workspace}/tree/{notebook}?reset", wait_until="domcontentloaded")
        page.wait_for_function(KERNEL_READY, arg=notebook, timeout=90_000)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(ALL_RAN, timeout=120_000, polling=500)
        errors = page.evaluate(ERRORS)
        assert errors == [], f"{notebook}: error outputs: {errors}"

        if "index" in notebook:  # the index has no live panel: it links the chapters
            page.screenshot(path=str(SHOTS / f"{Path(notebook).stem}.png"), full_page=False)
            return
        # Widget views render after the kernel reports idle: wait for the first slider.
        try:
            page.wait_for_selector(".kubenotes-control.widget-slider", state="attached", timeout=60_000)
        except sync_api.TimeoutError:
            page.screenshot(path=str(SHOTS / f"{Path(notebook).stem}-no-slider.png"), full_page=False)
            raise AssertionError(f"{notebook}: no kubenotes slider rendered within 60 s") from None
        sliders = page.locator(".kubenotes-control.widget-slider")
        outputs = page.locator(".kubenotes-live-output")
        slider = sliders.first
        slider.scroll_into_view_if_needed()
        panel_output = outputs.first
        page.wait_for_function("el => el.innerHTML.length > 0", arg=panel_output.element_handle(), timeout=30_000)
        before = panel_output.inner_html()
        handle = slider.locator(".noUi-handle").first
        handle.click()
        for _ in range(3):
            handle.press("ArrowRight")
        page.wait_for_function("([el, old]) => el.innerHTML.length > 0 && el.innerHTML !== old",
                               arg=[panel_output.element_handle(), before], timeout=30_000)
        page.wait_for_timeout(500)
        panel_output.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"{Path(notebook).stem}.png"), full_page=False)
        assert page.evaluate(ERRORS) == []
    finally:
        page.close()
