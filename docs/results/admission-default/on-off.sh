#!/usr/bin/env bash
# Admission on (TinyLFU, the default) against off, in alternating runs of one benchmarks.jar:
#   on-off.sh <outdir> <rounds>
# Each round runs every benchmark once with admission=none and once with admission=tinylfu (or
# the -none peer names for inserts), the order swapped every round; one fork per configuration,
# -prof gc, one JSON file per run. Run from the repository's root after
# ./mvnw -q -pl cache-bench -am package -DskipTests.
set -u
out=$1 rounds=$2
java="$(./clockwork --print-jdk | cut -d' ' -f2)/bin/java"
jar=cache-bench/target/benchmarks.jar
mkdir -p "$out"
run() { # name side args...
  local name=$1 side=$2; shift 2
  "$java" -jar "$jar" "$@" -f 1 -prof gc -rf json -rff "$out/$name-$side-$r.json" \
      > "$out/$name-$side-$r.log" 2>&1 || echo "FAILED $name $side $r"
}
for r in $(seq 1 "$rounds"); do
  order="off on"; [ $((r % 2)) = 0 ] && order="on off"
  for side in $order; do
    adm=none; [ "$side" = on ] && adm=tinylfu
    sfx=-none; [ "$side" = on ] && sfx=
    run hit "$side" 'LookupHitBenchmark.clockwork_lookupRelease_(1t|2t)' -p entries=1024,65536 \
        -p table=fixed,auto,lru -p admission=$adm -wi 3 -w 1s -i 4 -r 1s
    run mix "$side" 'CacheBenchMixBenchmark.clockwork_(1t|2t)' -p valueBytes=1024 \
        -p pinnedRatio=0.25 -p table=fixed,auto,lru -p admission=$adm -wi 3 -w 1s -i 4 -r 1s
    run insert "$side" 'PeerInsertBenchmark.insert_(1t|2t)' -p valueBytes=1024 \
        -p cache=clockwork-fixed$sfx,clockwork-auto$sfx,clockwork-lru$sfx -wi 3 -w 1s -i 4 -r 1s
  done
done
