#!/bin/bash
# PeerInsertBenchmark, old jar (main's HEAD) and new jar alternating, two rounds; retries while
# another JMH instance holds /tmp/jmh.lock
# run where old.jar (benchmarks.jar built at 55e3f2d) and new.jar (this change) are; rounds 3
# and 4 ran the same with "for round in 3 4" and the final commit's jar
J=${JAVA_HOME:+$JAVA_HOME/bin/}java  # JDK 22+
for round in 1 2; do for side in old new; do
  while true; do
    $J -jar $side.jar 'PeerInsertBenchmark.insert_1t' -p cache=clockwork-fixed,clockwork-lru \
       -p valueBytes=64,1024 -f 1 -wi 2 -w 1s -i 3 -r 1s -rf json -rff insert-$side-$round.json \
       > log-$side-$round.txt 2>&1
    if grep -q "Unable to acquire the JMH lock" log-$side-$round.txt; then sleep 5; continue; fi
    break
  done
done; done
echo finished > done.txt
