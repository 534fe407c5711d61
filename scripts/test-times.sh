#!/usr/bin/env bash
# After a test run: the slowest test classes of both tiers and the time each tier's classes took,
# from the reports Surefire wrote (target/surefire-reports for the fast tier,
# target/process-tier-reports for the process tier). A class's time is its own JVM's, so with
# forks running at once the sums are more than the tiers' wall-clock time.
#   scripts/test-times.sh [HOW_MANY]     # default 10
set -euo pipefail
cd "$(dirname "$0")/.."
how_many=${1:-10}

# One line per class: seconds, tier, class name; read from each report's <testsuite> element.
times() {
  local tier=$1 dir=$2
  [ -d "$dir" ] || return 0
  for report in "$dir"/TEST-*.xml; do
    [ -e "$report" ] || continue
    sed -n '1,3{s/.*<testsuite [^>]*name="\([^"]*\)" time="\([^"]*\)".*/\2 '"$tier"' \1/p}' "$report"
  done
}

all=$( { times fast target/surefire-reports; times process target/process-tier-reports; } | sort -rn)
if [ -z "$all" ]; then
  echo "no test reports under target/ (run the tests first)"
  exit 0
fi
echo "slowest $how_many test classes (seconds, tier, class):"
echo "$all" | head -n "$how_many" | awk '{printf "  %7.1f  %-7s  %s\n", $1, $2, $3}'
echo "$all" | awk '{sum[$2] += $1; count[$2]++}
  END {for (tier in sum) printf "%s tier: %d classes, %.0f s of class time\n", tier, count[tier], sum[tier]}' | sort
