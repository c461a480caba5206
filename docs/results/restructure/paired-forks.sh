#!/usr/bin/env bash
# Paired, alternating forks: the commit before the restructure (base) and after (new).
J=${JAVA:-java}  # a JDK 22+; ./clockwork --print-jdk names one
BASE=${BASE:?the benchmarks.jar of the commit before}
NEW=${NEW:-cache-bench/target/benchmarks.jar}
cp $NEW ${OUT:-.}/new.jar; cp $BASE ${OUT:-.}/base.jar
run() { # label jar round
  $J -jar ${OUT:-.}/$1.jar 'LookupHitBenchmark.clockwork_lookup(Read)?Release_1t' -p entries=1024 -p table=fixed,auto,lru \
     -f 1 -wi 3 -w 1s -i 5 -r 1s -rf json -rff ${OUT:-.}/hit-$1-$2.json > ${OUT:-.}/hit-$1-$2.log 2>&1
  $J -jar ${OUT:-.}/$1.jar 'CacheBenchMixBenchmark.clockwork_1t' -p valueBytes=1024 -p pinnedRatio=0.25 -p table=fixed,auto,lru \
     -f 1 -wi 3 -w 1s -i 5 -r 1s -rf json -rff ${OUT:-.}/mix-$1-$2.json > ${OUT:-.}/mix-$1-$2.log 2>&1
}
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then run base $r; run new $r; else run new $r; run base $r; fi
  echo "round $r done $(date)" >> ${OUT:-.}/progress
done
echo ALLDONE >> ${OUT:-.}/progress
