"""Where a test run's minutes went: read the file ``DPVIZ_TEST_TIMELINE`` wrote (tests/conftest.py)
and print each worker's busy time, its idle tail (the last file that ran alone), and the files
that cost the most, by worker.

    DPVIZ_TEST_TIMELINE=/tmp/times.tsv bash scripts/test.sh
    python scripts/test_timeline.py /tmp/times.tsv
"""

import sys
from collections import defaultdict


def main(path: str) -> None:
    """Print the summary of one timeline file."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            worker, start, stop, when, nodeid = line.rstrip("\n").split("\t")
            rows.append((worker, float(start), float(stop), when, nodeid))
    t0 = min(r[1] for r in rows)
    spans: dict = defaultdict(lambda: [float("inf"), 0.0, 0.0, ""])  # file -> first, last, busy, worker
    ends: dict = defaultdict(float)
    for worker, start, stop, _, nodeid in rows:
        file = nodeid.split("::", 1)[0]
        s = spans[file]
        s[0], s[1], s[2], s[3] = min(s[0], start), max(s[1], stop), s[2] + stop - start, worker
        ends[worker] = max(ends[worker], stop)
    end = max(ends.values())
    print(f"run: {(end - t0) / 60:.1f} min from the first test to the last")
    for worker, e in sorted(ends.items()):
        busy = sum(s[2] for s in spans.values() if s[3] == worker)
        print(f"  {worker}: busy {busy / 60:.1f} min, done {(end - e) / 60:.1f} min before the end")
    print("\nfiles by time (first start, span, worker):")
    for file, (first, _last, busy, worker) in sorted(spans.items(), key=lambda kv: -kv[1][2])[:40]:
        print(f"  {(first - t0) / 60:5.1f} min  {busy:7.1f} s  {worker:4}  {file}")
    print("\neach worker's last files (start, end, minutes from the first test):")
    for worker in sorted(ends):
        mine = sorted((s[0], s[1], f) for f, s in spans.items() if s[3] == worker)
        for first, last, file in mine[-6:]:
            print(f"  {worker:4} {(first - t0) / 60:5.1f} - {(last - t0) / 60:5.1f}  {file}")


if __name__ == "__main__":
    main(sys.argv[1])
