#!/usr/bin/env python3
"""`mcp-raw ui A B`, two recordings side by side, in a real browser driven over the
DevTools protocol (scripts/cdp.py; standard library only):

    python3 scripts/ui_diff.py BIN CHROMIUM A B

1. The page says as many differences as `mcp-raw diff --format json A B` reports,
   draws one pair per message of the longer side in each direction, and marks as
   differing exactly the pairs diff names, each with diff's own words.
2. In each differing pair where diff quotes a value whole (not cut short, not a
   placeholder of --ignore), the field marked in
   A's cell is A's value and the one in B's is B's (read back as JSON from the
   page's text).
3. `differences only` keeps exactly the differing pairs, and the URL keeps it.
4. A pair's link opens that side's own page at that event (`side=b#event=N`): the
   row opened is that event's.
5. A screenshot of the view is kept (UI_SHOTS, else target/ui-shots); no exception
   was thrown in the page.

Exit status 0 when every check passes.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

FAILED = []
SHOTS = os.environ.get("UI_SHOTS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "ui-shots")
DETAIL = re.compile(r"^(?P<path>.+?): (?P<a>.+) \(A, event \d+\) vs (?P<b>.+) \(B, event \d+\)$")


def fail(what):
    FAILED.append(what)
    print("FAILED:", what)


def main():
    binary, chromium, a, b = sys.argv[1:5]
    report = json.loads(subprocess.run([binary, "diff", "--format", "json", a, b], stdout=subprocess.PIPE, text=True).stdout)
    said = sorted((d["dir"], d["n"], d["detail"]) for d in report["differences"])
    pairs = max(report["a"]["c2s"], report["b"]["c2s"]) + max(report["a"]["s2c"], report["b"]["s2c"])
    ui = subprocess.Popen([binary, "ui", a, b], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"ui: (http://\S+)", ui.stderr.readline()).group(1)
        with Browser(chromium) as browser:
            tab = browser.open(url)
            if not tab.wait("document.body.dataset.loaded === 'whole'"):
                fail("the side-by-side page never drew its pairs")
            shown = tab.eval("Number(document.getElementById('counts').dataset.differences)")
            drawn = tab.eval("document.querySelectorAll('.pair:not(.heads)').length")
            print(f"diff reports {len(said)} differences over {pairs} pairs; the page says {shown}, draws {drawn}")
            if shown != len(said) or drawn != pairs:
                fail(f"the page says {shown} differences and draws {drawn} pairs; diff: {len(said)}, {pairs}")
            got = tab.eval("""[...document.querySelectorAll('.pair.differs')].map((el) => {
                const cells = el.querySelectorAll('.side');
                const marked = (c) => { const m = c && c.querySelector('mark.first'); return m ? m.textContent : null; };
                return {dir: el.classList.contains('c2s') ? 'c2s' : 's2c', n: Number(el.querySelector('.n').textContent.split(' ')[1]),
                        detail: el.querySelector('.detail').textContent, a: marked(cells[0]), b: marked(cells[1])};
            })""")
            if sorted((g["dir"], g["n"], g["detail"]) for g in got) != said:
                fail(f"the differing pairs are not diff's: {got[:3]} vs {said[:3]}")
            checked = 0
            for g in got:
                m = DETAIL.match(g["detail"])
                if not m or m["path"] == "the message" or m["path"].endswith(" length"):
                    continue
                for side in ("a", "b"):
                    quoted = m[side]
                    # diff quotes values after --ignore: a placeholder is not the field.
                    if quoted.endswith("…") or quoted in ('"(absent)"', '"<time>"', '"<id>"', '"<uuid>"'):
                        continue
                    checked += 1
                    if g[side] is None or json.loads(g[side]) != json.loads(quoted):
                        fail(f"{g['dir']} {g['n']}: {side.upper()}'s marked field is {g[side]!r}, diff says {quoted}")
            print(f"{checked} marked fields read back equal to the values diff quotes")
            if checked < 2:
                fail(f"only {checked} marked fields could be checked")
            tab.eval("document.getElementById('only').click()")
            only = tab.eval("document.querySelectorAll('.pair:not(.heads)').length")
            kept = tab.eval("location.hash")
            if only != len(said) or kept != "#only=1":
                fail(f"differences only: {only} pairs drawn (want {len(said)}), URL fragment {kept!r}")
            os.makedirs(SHOTS, exist_ok=True)
            tab.screenshot(os.path.join(SHOTS, "ui-diff.png"))
            # B's own page at the first differing pair's event.
            link = tab.eval("(() => { const l = [...document.querySelectorAll('.pair.differs .side a.where')].find((x) => x.href.includes('side=b')); return l && l.getAttribute('href'); })()")
            event = int(link.rsplit("event=", 1)[1])
            tab.call("Page.navigate", {"url": url.split("/diff.html")[0] + link})
            if not tab.wait(f"document.getElementById('detail').dataset.n === '{event - 1}'"):
                fail(f"B's page at {link} did not open event {event}")
            else:
                opened = tab.eval("document.querySelector('#detail h2').textContent")
                print(f"B's page opened at event {event}: {opened}")
            thrown = tab.console_errors()
            if thrown:
                fail(f"the page threw: {thrown}")
    finally:
        ui.kill()
        ui.wait()
    if FAILED:
        print(f"ui diff: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print("ui diff: OK")


if __name__ == "__main__":
    main()
