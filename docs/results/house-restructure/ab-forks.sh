#!/usr/bin/env bash
# Before vs after in alternating forks: ab-forks.sh <outdir> <rounds> <before.jar> <after.jar>
#   <name> <JMH arguments...>
# One fork of each benchmarks.jar per round, the order swapped every round (before, after;
# after, before; ...), the same JMH arguments, -prof gc, one JSON file per fork. Run from the
# repository's root (it asks ./clockwork for the JDK).
set -u
out=$1 rounds=$2 a=$3 b=$4 name=$5; shift 5
java="$(./clockwork --print-jdk | cut -d' ' -f2)/bin/java"
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  order="before after"; [ $((r % 2)) = 0 ] && order="after before"
  for side in $order; do
    jar=$a; [ "$side" = after ] && jar=$b
    "$java" -jar "$jar" "$@" -f 1 -prof gc -rf json -rff "$out/$name-$side-$r.json" \
        > "$out/$name-$side-$r.log" 2>&1 || echo "FAILED $name $side $r"
  done
done
