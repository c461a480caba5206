package dev.clockwork.cli.workload;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What the JVM spent on a timed phase besides the work itself, from its own records: the
 * collectors' counts and times ({@link GarbageCollectorMXBean}), each collection's pause and
 * the heap it left ({@link GarbageCollectionNotificationInfo}), and the process's CPU time
 * (user + system, all threads: the collectors' and the compiler's too).
 *
 * <h2>Pauses and cycles</h2>
 * A collector bean whose name ends in "Cycles" (ZGC's and Shenandoah's) times concurrent
 * cycles, which stop no thread: its collections count as {@code cycles}. Every other bean (G1's
 * young, old and concurrent, whose collections are its stop-the-world young, full, remark and
 * cleanup pauses; ZGC's and Shenandoah's "Pauses"; Parallel's and Serial's) times pauses. The
 * JVM reports durations in whole milliseconds: a pause under 1 ms (ZGC's) counts, with 0 ms.
 * The total pause time is the larger of the beans' and the notifications' sums, which round
 * apart by a millisecond or so.
 *
 * <p>Start with {@link #start()}, end with {@link #stop()}; one thread starts and stops, the
 * JVM's notification thread records in between.
 */
public final class JvmBill implements NotificationListener {
    private final List<GarbageCollectorMXBean> beans =
            ManagementFactory.getGarbageCollectorMXBeans();
    private final Set<String> heapPools = heapPoolNames();
    private final long[] countAtStart = new long[beans.size()];
    private final long[] millisAtStart = new long[beans.size()];
    private long cpuAtStart;
    // Written by the JVM's notification thread, read after stop().
    private volatile long maxPauseMillis;
    private volatile long notifiedPauseMillis;
    private volatile long heapAfterLastGc = -1;

    /**
     * The bill of one phase.
     *
     * @param collector the collectors' bean names, joined
     * @param pauses stop-the-world collections
     * @param pauseMillis their total time
     * @param maxPauseMillis the longest one (0 when all took under a millisecond)
     * @param cycles concurrent cycles (ZGC, Shenandoah)
     * @param cycleMillis their total time (concurrent: no thread stopped)
     * @param heapAfterLastGcBytes heap in use after the phase's last collection, or -1 if none ran
     * @param heapUsedBytes heap in use at the end of the phase
     * @param maxHeapBytes the heap's limit ({@code -Xmx})
     * @param cpuNanos process CPU time, user + system, or -1 where the JVM does not say
     */
    public record Bill(String collector, long pauses, long pauseMillis, long maxPauseMillis,
                       long cycles, long cycleMillis, long heapAfterLastGcBytes,
                       long heapUsedBytes, long maxHeapBytes, long cpuNanos) {

        /** CPU nanoseconds per operation, or -1 when unknown. */
        public double cpuNanosPerOp(long ops) {
            return cpuNanos < 0 || ops == 0 ? -1 : (double) cpuNanos / ops;
        }

        /** The report's line. */
        public String describe(long ops) {
            String heapAfter = heapAfterLastGcBytes < 0 ? "no collection"
                    : ProcessStats.mib(heapAfterLastGcBytes) + " MiB";
            return String.format(Locale.ROOT, "GC: %d pauses, %d ms in all, longest %s; %d"
                            + " concurrent cycles, %d ms%nHeap: %s MiB in use at the end, after"
                            + " the last collection %s, limit %s MiB%nCPU: %s per op (user +"
                            + " system, every thread)%n", pauses, pauseMillis,
                    pauses == 0 ? "-" : maxPauseMillis == 0 ? "< 1 ms" : maxPauseMillis + " ms",
                    cycles, cycleMillis, ProcessStats.mib(heapUsedBytes), heapAfter,
                    ProcessStats.mib(maxHeapBytes), cpuNanos < 0 ? "n/a"
                            : String.format(Locale.ROOT, "%.0f ns", cpuNanosPerOp(ops)));
        }
    }

    /** Starts counting: listens to every collector and notes the counters. */
    public JvmBill start() {
        for (int i = 0; i < beans.size(); i++) {
            countAtStart[i] = beans.get(i).getCollectionCount();
            millisAtStart[i] = beans.get(i).getCollectionTime();
            if (beans.get(i) instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(this, null, null);
            }
        }
        cpuAtStart = cpuNanos();
        return this;
    }

    /** Stops counting and returns the bill since {@link #start()}. */
    public Bill stop() {
        long cpu = cpuNanos();
        long pauses = 0;
        long pauseMillis = 0;
        long cycles = 0;
        long cycleMillis = 0;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < beans.size(); i++) {
            GarbageCollectorMXBean bean = beans.get(i);
            names.add(bean.getName());
            long count = Math.max(0, bean.getCollectionCount() - countAtStart[i]);
            long millis = Math.max(0, bean.getCollectionTime() - millisAtStart[i]);
            if (isCycles(bean.getName())) {
                cycles += count;
                cycleMillis += millis;
            } else {
                pauses += count;
                pauseMillis += millis;
            }
            if (bean instanceof NotificationEmitter emitter) {
                try {
                    emitter.removeNotificationListener(this);
                } catch (ListenerNotFoundException e) {
                    // never added: nothing to remove
                }
            }
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        // The beans' times and the notifications' durations are rounded apart (a total of 58 ms
        // with a longest pause of 59 has been seen): the total is the larger of the two sums,
        // so that it is never below the longest pause.
        pauseMillis = Math.max(pauseMillis, notifiedPauseMillis);
        return new Bill(String.join(", ", names), pauses, pauseMillis, maxPauseMillis, cycles,
                cycleMillis, heapAfterLastGc, heap.getUsed(), heap.getMax(),
                cpu < 0 || cpuAtStart < 0 ? -1 : cpu - cpuAtStart);
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION
                .equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                (CompositeData) notification.getUserData());
        if (!isCycles(info.getGcName())) {
            long millis = info.getGcInfo().getDuration();
            maxPauseMillis = Math.max(maxPauseMillis, millis);
            notifiedPauseMillis += millis; // one notification thread writes
        }
        long after = 0;
        for (Map.Entry<String, MemoryUsage> pool
                : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                after += pool.getValue().getUsed();
            }
        }
        heapAfterLastGc = after;
    }

    /** Whether a collector bean times concurrent cycles rather than pauses. */
    static boolean isCycles(String beanName) {
        return beanName.endsWith("Cycles");
    }

    private static Set<String> heapPoolNames() {
        Set<String> names = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                names.add(pool.getName());
            }
        }
        return names;
    }

    /** The process's CPU time in nanoseconds, or -1 where the JVM does not provide it. */
    static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
