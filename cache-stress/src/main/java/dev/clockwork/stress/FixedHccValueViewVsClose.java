package dev.clockwork.stress;

import static dev.clockwork.stress.VersionedKeys.A;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.Priority;
import dev.clockwork.offheap.FixedHyperClockCache;
import dev.clockwork.offheap.ModelAccess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.LLLL_Result;

/**
 * A value view held by a caller ({@code value(h)} of a pinned handle, taken before the race) is
 * written to a channel through its {@code ByteBuffer} while another thread closes the cache.
 * The write holds the cache's memory for its whole copy, so close either waits for it or the
 * write finds the memory closed and throws; close frees everything either way.
 *
 * <p>Result fields: r1 the write, r2 the close, r3 the bytes the channel received, r4 a second
 * close and whether the value memory was freed. (Whether every native byte came back cannot be
 * told per cache inside jcstress, which runs many states at once: {@code CloseVsIoTest} checks
 * the process's balance around a write that blocks.)
 */
@JCStressTest
@Description("A write of value(h).asByteBuffer() races with close(): the channel gets the whole "
        + "value, or the write throws IllegalStateException and the channel gets nothing; "
        + "close never fails and frees the cache's memory.")
@Outcome(id = "WROTE, OK, A_V0, OK", expect = ACCEPTABLE,
        desc = "The write copied A's bytes before close closed the memory (close waited for it, "
                + "or came after).")
@Outcome(id = "EX_IllegalStateException, OK, NONE, OK", expect = ACCEPTABLE,
        desc = "The write met the closed memory and said so; nothing was written.")
@Outcome(expect = FORBIDDEN,
        desc = "Anything else: other bytes or a part of the value written (freed memory read), "
                + "another exception, a close that failed, or value memory left after close.")
@State
public class FixedHccValueViewVsClose {
    private final FixedHyperClockCache cache = FixedFixture.newCache(FixedFixture.ROOM_3);
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    /**
     * Not {@code Channels.newChannel(received)}: that channel is interruptible, and an interrupt
     * the harness leaves on an actor thread made it throw {@code ClosedByInterruptException}
     * after a whole write, which says nothing of the cache. This one copies the buffer's bytes
     * out in one bulk read, which holds the cache's memory for the copy, as a channel's write
     * holds it.
     */
    private final WritableByteChannel channel = new WritableByteChannel() {
        @Override
        public int write(ByteBuffer src) {
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            received.write(bytes, 0, bytes.length);
            return bytes.length;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    };
    private final MemorySegment view;

    public FixedHccValueViewVsClose() {
        VersionedKeys.insert(cache, A, 0, Priority.LOW);
        long h = VersionedKeys.lookup(cache, A);
        view = h == Cache.MISS ? MemorySegment.NULL : cache.value(h); // held across close
    }

    @Actor
    public void writer(LLLL_Result r) {
        try {
            ByteBuffer buffer = view.asByteBuffer();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            r.r1 = "WROTE";
        } catch (RuntimeException | Error | IOException e) {
            r.r1 = Outcomes.failure(e);
        }
    }

    @Actor
    public void closer(LLLL_Result r) {
        r.r2 = Outcomes.close(cache);
    }

    @Arbiter
    public void arbiter(LLLL_Result r) {
        byte[] bytes = received.toByteArray();
        r.r3 = bytes.length == 0 ? "NONE" : VersionedKeys.labelOf(MemorySegment.ofArray(bytes));
        long values = ModelAccess.valueChunkBytes(cache);
        r.r4 = Outcomes.problems(Outcomes.close(cache),
                values == 0 ? "OK" : "VALUES_LEFT" + values);
    }
}
