#!/usr/bin/env python3
"""Scores `contrib check`'s findings against the labelled precision set.

    precision.py DATA_DIR RUN_DIR [--check] [--unlabelled]

DATA_DIR holds sources.tsv (each source's part: tuning or held-out) and
labels.tsv; RUN_DIR holds SOURCE.json, what `contrib check --format json`
printed on each source, extracted under RUN_DIR/SOURCE. A finding is known
by its source, file, rule and message; one label covers every identical
finding in a file (the same broken reference written twice is one fault,
counted at each place it is written).

Prints precision per rule and overall, for the default rules and apart for
the opt-in ones, for the tuning part, the held-out part and both. With
--check, exits 1 when a finding has no label, or a default rule with 10 or
more findings, or the default set as a whole, is under 0.9 in either part.
--unlabelled prints the findings with no label, as lines to fill in.
"""
import csv
import json
import os
import sys
from collections import defaultdict

GOAL = 0.9
MINIMUM = 10
OPT_IN = {"shell-in-skill", "catalog-metadata", "missing-reference"}


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file, delimiter="\t", quoting=csv.QUOTE_NONE))


def findings(run, source):
    with open(os.path.join(run, source + ".json"), encoding="utf-8") as file:
        document = json.load(file)
    prefix = os.path.join(run, source) + os.sep
    for diagnostic in document["diagnostics"]:
        path = diagnostic["file"]
        if path.startswith(prefix):
            path = path[len(prefix):]
        yield {
            "source": source,
            "file": path,
            "line": diagnostic["line"],
            "rule": diagnostic["name"],
            "severity": diagnostic["severity"],
            "message": " ".join(diagnostic["message"].split()),
        }


def key(row):
    return (row["source"], row["file"], row["rule"], " ".join(row["message"].split()))


def ratio(good, total):
    return good / total if total else float("nan")


def table(title, counts):
    print(f"\n{title}")
    print(f"  {'rule':<24} {'findings':>8} {'true':>6} {'precision':>9}")
    default = [0, 0]
    opt_in = [0, 0]
    for rule in sorted(counts):
        true, total = counts[rule]
        mark = " (opt-in)" if rule in OPT_IN else ""
        print(f"  {rule:<24} {total:>8} {true:>6} {ratio(true, total):>9.2f}{mark}")
        bucket = opt_in if rule in OPT_IN else default
        bucket[0] += true
        bucket[1] += total
    print(f"  {'default rules':<24} {default[1]:>8} {default[0]:>6} {ratio(*default):>9.2f}")
    if opt_in[1]:
        print(f"  {'opt-in rules':<24} {opt_in[1]:>8} {opt_in[0]:>6} {ratio(*opt_in):>9.2f}")
    return default


def main(argv):
    data, run = argv[0], argv[1]
    check = "--check" in argv
    parts = {row["source"]: row["part"] for row in read_tsv(os.path.join(data, "sources.tsv"))}
    labels = {}
    for row in read_tsv(os.path.join(data, "labels.tsv")):
        if row["verdict"] not in ("true", "false"):
            sys.exit(f"labels.tsv: `{row['verdict']}` is not true or false: {row}")
        labels[key(row)] = row["verdict"] == "true"
    counts = {"tuning": defaultdict(lambda: [0, 0]), "held-out": defaultdict(lambda: [0, 0])}
    unlabelled = []
    seen = set()
    for source, part in parts.items():
        for finding in findings(run, source):
            verdict = labels.get(key(finding))
            if verdict is None:
                unlabelled.append(finding)
                continue
            seen.add(key(finding))
            counts[part][finding["rule"]][0] += verdict
            counts[part][finding["rule"]][1] += 1
    both = defaultdict(lambda: [0, 0])
    for part in counts.values():
        for rule, (true, total) in part.items():
            both[rule][0] += true
            both[rule][1] += total
    total = sum(total for _, total in both.values())
    print(f"contrib check on {len(parts)} public collections: {total} labelled findings")
    failures = []
    for part in ("tuning", "held-out"):
        default = table(f"{part} ({', '.join(s for s, p in parts.items() if p == part)})", counts[part])
        if ratio(*default) < GOAL:
            failures.append(f"{part}: the default rules' precision is {ratio(*default):.2f}")
        for rule, (true, count) in counts[part].items():
            if rule not in OPT_IN and count >= MINIMUM and ratio(true, count) < GOAL:
                failures.append(f"{part}: `{rule}` is at {ratio(true, count):.2f} over {count} findings")
    table("both parts", both)
    stale = [label for label in labels if label not in seen]
    if stale:
        print(f"\n{len(stale)} labels match no finding any more (rules changed): drop or relabel them")
    if unlabelled:
        print(f"\n{len(unlabelled)} findings have no label")
        if "--unlabelled" in argv:
            for finding in unlabelled:
                part = parts[finding["source"]]
                print("\t".join([part, finding["source"], finding["file"], finding["rule"],
                                 finding["message"], "?", f"line {finding['line']}"]))
        failures.append(f"{len(unlabelled)} findings have no label")
    if check and failures:
        print("\n" + "\n".join(f"error: {failure}" for failure in failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
