#!/usr/bin/env bash
# Draws docs/architecture-packages.svg: the packages of the compiled classes, in the layers of
# docs/architecture.md's table (top layer first), an arrow for each package one uses directly.
# Arrows that another path already implies are left out (Graphviz's tred), so the picture stays
# readable. Needs a JDK (jdeps) and Graphviz (dot, tred): apt-get install graphviz.
# Usage: scripts/architecture-diagram.sh   (builds the classes first if target/classes is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d target/classes/io/quorumkv ] || mvn -q -B -DskipTests compile
out=docs/architecture-packages.svg

short() { sed -e 's/^io\.quorumkv\.//' -e 's/^io\.quorumkv$/io.quorumkv/'; }
# The layer table's rows: "| n | `package` | ..."
layers=$(sed -n 's/^| *\([0-9][0-9]*\) *| *`\([a-z.]*\)` *|.*/\1 \2/p' docs/architecture.md)
[ -n "$layers" ] || { echo "no layer table in docs/architecture.md" >&2; exit 1; }

{
  echo 'digraph packages {'
  echo '  rankdir=TB; nodesep=0.25; ranksep=0.35;'
  echo '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#4a6fa5", fontname="Helvetica", fontsize=11];'
  echo '  edge [color="#7a8899", arrowsize=0.6];'
  while read -r n pkg; do echo "  \"$pkg\" [label=\"$n  $pkg\"];"; done <<< "$layers"
  # Invisible arrows from each layer to the next keep the picture in the table's order.
  prev=""
  while read -r n pkg; do
    [ -z "$prev" ] || echo "  \"$prev\" -> \"$pkg\" [style=invis];"
    prev=$pkg
  done <<< "$layers"
  jdeps -verbose:package -e 'io\.quorumkv.*' target/classes \
    | awk '$2 == "->" && $1 != $3 && $1 ~ /^io\.quorumkv/ && $3 ~ /^io\.quorumkv/ { print $1, $3 }' | sort -u \
    | while read -r from to; do
        echo "  \"$(echo "$from" | short)\" -> \"$(echo "$to" | short)\";"
      done
  echo '}'
} > target/architecture-packages.dot

# tred drops arrows implied by longer paths; the invisible ordering arrows only add paths among layers,
# so they are dropped from the reduction's input and put back after.
grep -v 'style=invis' target/architecture-packages.dot | tred > target/architecture-packages.reduced.dot
grep 'style=invis' target/architecture-packages.dot > target/architecture-packages.order
sed -i '$d' target/architecture-packages.reduced.dot
cat target/architecture-packages.order >> target/architecture-packages.reduced.dot
echo '}' >> target/architecture-packages.reduced.dot
dot -Tsvg target/architecture-packages.reduced.dot -o "$out"
uses=$(grep -v 'style=invis' target/architecture-packages.dot | grep -c -- '" -> "')
drawn=$(grep -v 'style=invis' target/architecture-packages.reduced.dot | grep -c -- ' -> ')
echo "wrote $out: $uses direct package dependencies, drawn as $drawn arrows"
