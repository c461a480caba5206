#!/usr/bin/env bash
# Entry kinds, measured: the hot paths of the build before kinds (BASE) and with them (NEW), in
# one script, forks alternating base, new, base, new; then the new build alone, with and without
# kinds declared (EntryKindBenchmark's placement=priority|kind), two rounds. From the checkout's
# root:
#   BASE=<benchmarks.jar of the build before> NEW=cache-bench/target/benchmarks.jar \
#     docs/results/entry-kinds/ab.sh
# JSON and logs go to ${OUT:-/tmp/jmh-kinds}/LABEL-{base,new}-{1,2}.{json,log}.
set -euo pipefail
: "${BASE:?set BASE to the benchmarks.jar of the build before}"
NEW=${NEW:-cache-bench/target/benchmarks.jar}
OUT=${OUT:-/tmp/jmh-kinds}
JAVA="$(./clockwork --print-jdk | cut -d' ' -f2-)/bin/java" # the JDK ./clockwork finds
mkdir -p "$OUT"

run() { # jar label side round JMH-arguments...
    local jar=$1 label=$2 side=$3 round=$4
    shift 4
    "$JAVA" -Djmh.ignoreLock=true -jar "$jar" "$@" \
        -rf json -rff "$OUT/$label-$side-$round.json" > "$OUT/$label-$side-$round.log" 2>&1
}

paired() { # label JMH-arguments...
    local label=$1
    shift
    for round in 1 2; do
        run "$BASE" "$label" base "$round" "$@"
        run "$NEW" "$label" new "$round" "$@"
    done
}

COMMON=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
paired hits 'LookupHitBenchmark.clockwork_(lookupRelease|get|read)_1t' \
    -p entries=65536 -p table=fixed,auto,lru "${COMMON[@]}"
paired insert 'PeerInsertBenchmark.insert_1t' \
    -p cache=clockwork-fixed,clockwork-auto,clockwork-lru -p valueBytes=64 "${COMMON[@]}"
for round in 1 2; do
    run "$NEW" kinds new "$round" 'EntryKindBenchmark' "${COMMON[@]}"
done
