#!/usr/bin/env bash
# Two benchmark jars' forks alternating, base then after, two rounds: for comparing builds as
# ratios on a noisy machine. Usage, from the checkout's root:
#   BASE=<benchmarks.jar of the old build> NEW=cache-bench/target/benchmarks.jar \
#     docs/results/untrusted-callbacks/paired-forks.sh LABEL <JMH arguments>
# JSON and logs go to ${OUT:-/tmp/jmh-results}/LABEL-{base,new}-{1,2}.{json,log}.
set -euo pipefail
: "${BASE:?set BASE to the old build's benchmarks.jar}"
NEW=${NEW:-cache-bench/target/benchmarks.jar}
OUT=${OUT:-/tmp/jmh-results}
JAVA="$(./clockwork --print-jdk | cut -d' ' -f2-)/bin/java" # the JDK ./clockwork finds
mkdir -p "$OUT"
label=$1
shift
for round in 1 2; do
    for side in base new; do
        jar=$BASE
        [ "$side" = new ] && jar=$NEW
        "$JAVA" --enable-native-access=ALL-UNNAMED -jar "$jar" "$@" \
            -rf json -rff "$OUT/$label-$side-$round.json" > "$OUT/$label-$side-$round.log" 2>&1
    done
done
