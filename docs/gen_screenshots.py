"""Regenerate the review-site screenshots in docs/img/ (run from the repository root).

    python docs/gen_screenshots.py

Runs the demo through the real server into a temporary root, builds the site,
serves it on 127.0.0.1 and photographs a few pages with the system Chromium.
"""

from __future__ import annotations

import functools
import http.server
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from halo_git.demo import run_demo
from halo_git.site import build_site

IMG = Path(__file__).parent / "img"
SHOTS = {
    "site-home.png": ("index.html", None),
    "site-overview.png": ("agents/demo/index.html", "#channels"),
    "site-trace.png": ("agents/demo/trace/day2/index.html", "#e10"),
    "site-diagnosis.png": ("agents/demo/diagnosis.html", "#findings"),
    "site-revisions.png": ("agents/demo/revisions.html", None),
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run_demo(Path(tmp) / "root")
        out = Path(tmp) / "site"
        build_site(Path(tmp) / "root", out)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        IMG.mkdir(exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 760})
            for name, (path, anchor) in SHOTS.items():
                page.goto(f"{base}/{path}{anchor or ''}")
                page.wait_for_load_state("networkidle")
                page.screenshot(path=str(IMG / name))
                print(IMG / name)
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
