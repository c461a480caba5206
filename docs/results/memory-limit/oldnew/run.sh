#!/bin/bash
J=${JAVA_HOME:+$JAVA_HOME/bin/}java  # JDK 22+
cd "$(dirname "$0")"  # old.jar: benchmarks.jar built at 55e3f2d; new.jar: at 0191cb1
for r in 1 2; do
 for side in old new; do
  [ $r = 2 ] && side=$([ $side = old ] && echo new || echo old)
  $J -Djmh.ignoreLock=true -jar $side.jar 'PeerMixBenchmark.mix_1t|PeerInsertBenchmark.insert_1t' -p cache=clockwork-fixed-none,clockwork-fixed -p valueBytes=64,1024 -f 1 -wi 2 -w 1s -i 3 -r 1s -rf json -rff $side-$r.json > $side-$r.log 2>&1
 done
done
