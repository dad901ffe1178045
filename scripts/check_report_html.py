"""Check a balance report's HTML in a real browser (headless Chromium): a table of contents,
no table wider than its box on the page, no image wider than the page, and every plot
shown at a readable scale (not shrunk below --min-scale of its drawn width).

    python scripts/check_report_html.py reports/default/report.html
    python scripts/check_report_html.py my-report/report.html --width 1280 --screenshot shot.png

Chromium comes from Debian's packages (``apt-get install chromium``). Exit code 0 when
every check passes, 1 when one fails (each failure on its own line), 2 when the browser
cannot be run. Prints one JSON object with the measurements.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = """
<script>
window.addEventListener('load', function () {
  var page = document.documentElement;
  var out = {viewport: page.clientWidth, scroll_width: page.scrollWidth, tables: [],
             images: [], toc: document.querySelectorAll('nav ol li a').length,
             sections: document.querySelectorAll('h2[id]').length};
  document.querySelectorAll('.table-box').forEach(function (box, i) {
    var table = box.querySelector('table');
    var r = box.getBoundingClientRect();
    out.tables.push({index: i, box: r.width, right: r.right,
                     table: table.getBoundingClientRect().width,
                     columns: table.querySelectorAll('th').length});
  });
  document.querySelectorAll('img').forEach(function (img, i) {
    var r = img.getBoundingClientRect();
    out.images.push({index: i, alt: img.alt, shown: r.width, right: r.right,
                     natural: img.naturalWidth});
  });
  var pre = document.createElement('pre');
  pre.id = 'sunset-measure';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def measure(page: Path, width: int, screenshot: Path | None = None) -> dict:
    executable = browser()
    if executable is None:
        raise RuntimeError("no Chromium found (apt-get install chromium)")
    text = page.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe.html"
        probe.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
        common = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={width},1000", "--virtual-time-budget=10000",
            f"--user-data-dir={folder}/profile",
        ]  # fmt: skip
        done = subprocess.run(
            [*common, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=300
        )
        if screenshot is not None:
            subprocess.run(
                [*common, f"--screenshot={screenshot}", page.resolve().as_uri()],
                capture_output=True,
                timeout=300,
            )
    found = re.search(r'<pre id="sunset-measure">(.*?)</pre>', done.stdout, re.S)
    if not found:
        raise RuntimeError(f"the browser gave no measurements: {done.stderr[-500:]}")
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def problems(figures: dict, min_scale: float) -> list[str]:
    found = []
    if figures["toc"] < 2:
        found.append(f"table of contents: {figures['toc']} entries")
    if figures["scroll_width"] > figures["viewport"] + 1:
        found.append(
            f"page: {figures['scroll_width']} px wide in a {figures['viewport']} px window"
        )
    for table in figures["tables"]:
        if table["table"] > table["box"] + 1:
            found.append(
                f"table {table['index']}: {table['table']:.0f} px wide in a "
                f"{table['box']:.0f} px box ({table['columns']} columns)"
            )
        if table["right"] > figures["viewport"] + 1:
            found.append(f"table {table['index']}: its box runs off the page")
    for image in figures["images"]:
        if image["right"] > figures["viewport"] + 1:
            found.append(f"plot {image['alt']!r}: wider than the page")
        scale = image["shown"] / image["natural"] if image["natural"] else 0.0
        if scale < min_scale:
            found.append(
                f"plot {image['alt']!r}: shown at {scale:.0%} of its drawn width "
                f"({image['natural']} px): labels too small"
            )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path, help="report.html")
    parser.add_argument("--width", type=int, default=1280, help="browser window width (px)")
    parser.add_argument("--min-scale", type=float, default=0.75, help="smallest plot scale")
    parser.add_argument("--screenshot", type=Path, help="also write a screenshot (PNG)")
    args = parser.parse_args(argv)
    try:
        figures = measure(args.page, args.width, args.screenshot)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        print(f"check_report_html: {error}", file=sys.stderr)
        return 2
    found = problems(figures, args.min_scale)
    print(json.dumps({**figures, "problems": found}))
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
