#!/usr/bin/env python3
"""Quantiles of a Prometheus histogram between two scrapes of a node's /metrics.

  histogram_delta.py BEFORE.txt AFTER.txt METRIC [LABELS] [--over SECONDS]

METRIC is the histogram's name without _bucket (e.g. quorumkv_storage_loop_write_seconds);
LABELS, if given, is a substring every bucket line must hold (e.g. 'op="apply"'). Prints the
count of observations between the scrapes and, for p50, p99, p99.9 and p99.99, the upper bound
of the bucket that holds it (a quantile is never reported lower than it is). With --over, also
how many observations exceeded SECONDS, which must be one of the histogram's bucket bounds.
"""
import re
import sys

LINE = re.compile(r'^(\w+)_bucket\{(.*)le="([^"]+)"(.*)\}\s+(\S+)$')


def buckets(path, metric, labels):
    found = {}
    with open(path) as scrape:
        for line in scrape:
            match = LINE.match(line.strip())
            if not match or match.group(1) != metric or labels not in line:
                continue
            bound = float('inf') if match.group(3) == '+Inf' else float(match.group(3))
            found[bound] = found.get(bound, 0.0) + float(match.group(5))
    return found


def main():
    args = sys.argv[1:]
    over = None
    if '--over' in args:
        at = args.index('--over')
        over = float(args[at + 1])
        del args[at:at + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    before_path, after_path, metric = args[:3]
    labels = args[3] if len(args) > 3 else ''
    before = buckets(before_path, metric, labels)
    after = buckets(after_path, metric, labels)
    if not after:
        sys.exit(f'no {metric}_bucket lines in {after_path}')
    bounds = sorted(after)
    cumulative = [(bound, after[bound] - before.get(bound, 0.0)) for bound in bounds]
    total = cumulative[-1][1]
    print(f'{metric}: {int(total)} observations')
    if total == 0:
        return
    for quantile in (0.5, 0.99, 0.999, 0.9999):
        bound = next(b for b, count in cumulative if count >= quantile * total)
        shown = 'above the largest bucket' if bound == float('inf') else f'<= {bound * 1e6:,.1f} us'
        print(f'  p{quantile * 100:g}: {shown}')
    if over is not None:
        bound = next((b for b in bounds if abs(b - over) <= over * 1e-6), None)
        if bound is None:
            sys.exit(f'{over} s is not a bucket bound of {metric}')
        above = total - dict(cumulative)[bound]
        print(f'  over {over * 1e6:,.0f} us: {int(above)} ({100 * above / total:.3f}%)')


if __name__ == '__main__':
    main()
