package dev.clockwork.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.offheap.memory.ValueSlabs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LL_Result;

/**
 * A trim of the value slabs against a pop (internal API, reachable on the class path): the state
 * carves a whole chunk of 20 KiB blocks and frees every block, so a trim that sees them all
 * empties the chunk into the reserve. One actor trims while the other allocates a block and tags
 * it. Whichever wins, the block must stay the actor's: if the trim took the chunk while the
 * block was handed out, the arbiter's allocations from another class of the same chunk size
 * would be carved from it and overlap the block.
 */
@JCStressTest
@Description("A chunk of 20 KiB blocks, all free. Actor 1 trims the slabs; actor 2 allocates a "
        + "block and tags it. The arbiter then carves a whole chunk of 24 KiB blocks (same "
        + "chunk size: it takes an emptied chunk if there is one) and checks that none overlaps "
        + "actor 2's block and that its tag is intact.")
@Outcome(id = "OK, DISJOINT", expect = ACCEPTABLE,
        desc = "The block stayed actor 2's: its chunk was not given to another class.")
@Outcome(id = ".*OVERLAP.*", expect = FORBIDDEN,
        desc = "Another class was handed memory of a block actor 2 holds.")
@Outcome(id = ".*CLOBBERED.*", expect = FORBIDDEN,
        desc = "The block's tag changed under its owner.")
@Outcome(expect = FORBIDDEN, desc = "Anything else: an exception (its name), a failed close.")
@State
public class ValueSlabsTrimVsPop {
    private static final int LENGTH = 20 * 1024;
    private static final int OTHER = 24 * 1024;
    /** Blocks of either class in an 8 MiB chunk, less its header page. */
    private static final int BLOCKS = (8 * 1024 * 1024 - 4096) / LENGTH;
    private static final int OTHER_BLOCKS = (8 * 1024 * 1024 - 4096) / OTHER;
    private static final long TAG = 0x5EED_0F_B10CL;
    private static final MemorySegment RAW = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final Arena arena = Arena.ofShared();
    private final ValueSlabs slabs =
            new ValueSlabs(MemorySegment.NULL.reinterpret(Long.MAX_VALUE, arena, null));
    private long held;

    public ValueSlabsTrimVsPop() {
        long[] blocks = new long[BLOCKS];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = slabs.allocate(LENGTH);
        }
        for (long block : blocks) {
            slabs.freeGuarded(block, LENGTH);
        }
    }

    @Actor
    public void trimmer() {
        slabs.trim();
    }

    @Actor
    public void allocator(LL_Result r) {
        try {
            held = slabs.allocate(LENGTH);
            RAW.set(ValueLayout.JAVA_LONG, held + 8, TAG);
            r.r1 = RAW.get(ValueLayout.JAVA_LONG, held + 8) == TAG ? "OK" : "CLOBBERED";
        } catch (RuntimeException | Error e) {
            r.r1 = e.getClass().getSimpleName();
        }
    }

    @Arbiter
    public void arbiter(LL_Result r) {
        String verdict = "DISJOINT";
        try {
            for (int i = 0; i < OTHER_BLOCKS; i++) {
                long block = slabs.allocate(OTHER);
                RAW.set(ValueLayout.JAVA_LONG, block + 8, i);
                if (held != 0 && block < held + LENGTH && held < block + OTHER) {
                    verdict = "OVERLAP";
                }
            }
            if (held != 0 && RAW.get(ValueLayout.JAVA_LONG, held + 8) != TAG) {
                verdict += ";CLOBBERED";
            }
            arena.close();
            slabs.freeAll();
        } catch (RuntimeException | Error e) {
            verdict += ";" + e.getClass().getSimpleName();
        }
        r.r2 = verdict;
    }
}
