#!/usr/bin/env bash
# Entry kinds, measured. Each configuration (one benchmark, one parameter set) is run as a pair
# of forks back to back, ROUNDS times: the build before kinds (BASE) then the build with them
# (NEW), so that both sides of a ratio see the same load on a shared machine; then the new build
# alone, EntryKindBenchmark's placement=priority then placement=kind, likewise. From the
# checkout's root:
#   BASE=<benchmarks.jar of the build before> NEW=cache-bench/target/benchmarks.jar \
#     docs/results/entry-kinds/ab.sh
# HIT_BENCHES, INSERTS and KIND_BENCHES narrow what runs (empty: none of that set).
# One JSON per fork: ${OUT:-/tmp/jmh-kinds}/LABEL-SIDE-ROUND.json (ratios.py reads them).
set -euo pipefail
: "${BASE:?set BASE to the benchmarks.jar of the build before}"
NEW=${NEW:-cache-bench/target/benchmarks.jar}
OUT=${OUT:-/tmp/jmh-kinds}
ROUNDS=${ROUNDS:-4}
HIT_BENCHES=${HIT_BENCHES-lookupRelease get read} # LookupHitBenchmark's, before and after
INSERTS=${INSERTS-yes}                            # PeerInsertBenchmark, before and after
KIND_BENCHES=${KIND_BENCHES-lookupRelease lookupKindRelease insert} # EntryKindBenchmark's
JAVA="$(./clockwork --print-jdk | cut -d' ' -f2-)/bin/java" # the JDK ./clockwork finds
COMMON=(-f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc)
mkdir -p "$OUT"

run() { # jar label side round JMH-arguments...
    local jar=$1 label=$2 side=$3 round=$4
    shift 4
    "$JAVA" -Djmh.ignoreLock=true -jar "$jar" "$@" "${COMMON[@]}" \
        -rf json -rff "$OUT/$label-$side-$round.json" > "$OUT/$label-$side-$round.log" 2>&1
}

for round in $(seq "$ROUNDS"); do
    for table in fixed auto lru; do
        for bench in $HIT_BENCHES; do
            label=hits-$bench-$table
            args=("LookupHitBenchmark.clockwork_${bench}_1t\$" -p entries=65536 -p table=$table)
            run "$BASE" "$label" base "$round" "${args[@]}"
            run "$NEW" "$label" new "$round" "${args[@]}"
        done
        if [ -n "$INSERTS" ]; then
            label=insert-$table
            args=('PeerInsertBenchmark.insert_1t$' -p cache=clockwork-$table -p valueBytes=64)
            run "$BASE" "$label" base "$round" "${args[@]}"
            run "$NEW" "$label" new "$round" "${args[@]}"
        fi
        for bench in $KIND_BENCHES; do
            label=kinds-$bench-$table
            for placement in priority kind; do
                run "$NEW" "$label" "$placement" "$round" "EntryKindBenchmark.${bench}_1t\$" \
                    -p table=$table -p placement=$placement
            done
        done
    done
done
