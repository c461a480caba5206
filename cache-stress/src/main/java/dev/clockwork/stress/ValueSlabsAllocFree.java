package dev.clockwork.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.offheap.memory.ValueSlabs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLL_Result;

/**
 * The value slabs' free stacks under two threads (internal API, reachable on the class path):
 * each actor allocates a block, tags it and frees it, then allocates two blocks and tags them;
 * the blocks come from one size class whose free blocks the state put on one stack, so the
 * actors pop and push the same head. No block may be handed to both actors at once.
 */
@JCStressTest
@Description("Four 64-byte blocks are freed onto one stack. Each actor: allocate, tag, free, "
        + "then allocate two and tag them with its own numbers, and read the tags back. A block "
        + "handed out twice shows as a tag overwritten by the other actor, or as a block both "
        + "actors hold at the end.")
@Outcome(id = "OK, OK, DISTINCT", expect = ACCEPTABLE,
        desc = "Every block had one owner at a time; the four held at the end are distinct.")
@Outcome(id = ".*CLOBBERED.*", expect = FORBIDDEN,
        desc = "A tag was overwritten: the other actor was handed a block this one held.")
@Outcome(id = ".*, .*, SHARED", expect = FORBIDDEN,
        desc = "Both actors hold the same block at the end.")
@Outcome(expect = FORBIDDEN, desc = "Anything else: an exception (its name), a failed close.")
@State
public class ValueSlabsAllocFree {
    private static final int LENGTH = 64;
    private static final long TAG_OFFSET = 8;
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final Arena arena = Arena.ofShared();
    private final ValueSlabs slabs =
            new ValueSlabs(MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null));
    private final long[] held = new long[4];

    public ValueSlabsAllocFree() {
        long[] warm = new long[4];
        for (int i = 0; i < warm.length; i++) {
            warm[i] = slabs.allocate(LENGTH);
        }
        for (long block : warm) {
            slabs.free(block, LENGTH);
        }
    }

    private String run(int actor) {
        try {
            long first = slabs.allocate(LENGTH);
            RAW.set(ValueLayout.JAVA_LONG, first + TAG_OFFSET, actor);
            slabs.free(first, LENGTH);
            long y = slabs.allocate(LENGTH);
            long z = slabs.allocate(LENGTH);
            RAW.set(ValueLayout.JAVA_LONG, y + TAG_OFFSET, actor * 10 + 1);
            RAW.set(ValueLayout.JAVA_LONG, z + TAG_OFFSET, actor * 10 + 2);
            held[2 * actor - 2] = y;
            held[2 * actor - 1] = z;
            boolean intact = RAW.get(ValueLayout.JAVA_LONG, y + TAG_OFFSET) == actor * 10 + 1
                    && RAW.get(ValueLayout.JAVA_LONG, z + TAG_OFFSET) == actor * 10 + 2;
            return intact ? "OK" : "CLOBBERED";
        } catch (RuntimeException | Error e) {
            return e.getClass().getSimpleName();
        }
    }

    @Actor
    public void actor1(LLL_Result r) {
        r.r1 = run(1);
    }

    @Actor
    public void actor2(LLL_Result r) {
        r.r2 = run(2);
    }

    @Arbiter
    public void arbiter(LLL_Result r) {
        Set<Long> distinct = new HashSet<>();
        for (long block : held) {
            distinct.add(block);
        }
        String verdict = distinct.size() == held.length ? "DISTINCT" : "SHARED";
        try {
            arena.close();
            slabs.freeAll();
        } catch (RuntimeException | Error e) {
            verdict += ";" + e.getClass().getSimpleName();
        }
        r.r3 = verdict;
    }
}
