"""What a newcomer sees first on the review site: tab titles that do not repeat
the site name, and one date format (the events' own UTC ISO 8601)."""

from __future__ import annotations

import re

from halo_git import Halo
from halo_git.site import build_site


def test_titles_do_not_repeat_and_times_have_one_format(tmp_path):
    root = tmp_path / "root"
    with Halo(root) as h:
        h.log("demo", "observe", "inbox checked", session="day1", time="2026-11-30T09:00:00Z")
        h.log("demo", "act", "replied", ["e1"], "day1", trigger="request", time="2026-11-30T09:01:00Z")
    out = tmp_path / "site"
    build_site(root, out)
    home = (out / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<title>([^<]*)</title>", home) == ["HALO review"]
    titles = {p.relative_to(out).as_posix(): re.search(r"<title>([^<]*)</title>", p.read_text(encoding="utf-8")).group(1)
              for p in out.rglob("*.html") if p.name != "404.html"}
    for page, title in titles.items():
        assert title.count("HALO review") == 1, (page, title)
    shown = set()
    for p in out.rglob("*.html"):
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", text), p  # no second, space-separated format
        shown |= set(re.findall(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", text))
    assert {"2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z"} <= shown
