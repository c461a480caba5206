package dev.clockwork.offheap;

import dev.clockwork.cache.Cache;
import dev.clockwork.cache.dump.DumpReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.ReadableByteChannel;

/**
 * {@link EngineCache#load}: reads a dump with a {@link DumpReader} (which hands out a block's
 * records only once the block proved whole) and inserts them through the cache's public insert,
 * so that every insert is checked, admitted and counted as any other. The keys inserted are
 * logged in native memory (16 bytes each) so that a refusal later in the stream can erase them:
 * the stream may be a pipe or socket that cannot be read twice, so verifying it all first would
 * need it all in memory. The loop allocates nothing per record: the reader's buffer holds the
 * value, and the log grows by doubling.
 */
final class DumpLoad {
    /** Entries inserted between two reads of the cache's usage. */
    private static final int USAGE_READ_EVERY = 64;

    private DumpLoad() {
    }

    /** Reads a whole dump, checking everything, inserting nothing. */
    static void verify(ReadableByteChannel in) throws IOException {
        DumpReader reader = new DumpReader(in);
        while (reader.next()) {
            assert reader.valueLength() >= 0;
        }
    }

    static LoadSummary load(Cache cache, ReadableByteChannel in) throws IOException {
        long start = System.nanoTime();
        DumpReader reader = new DumpReader(in); // a bad header: nothing inserted yet
        try (KeyLog log = new KeyLog()) {
            long inserted = 0;
            long refused = 0;
            long skipped = 0;
            long capacity = cache.capacity();
            long usage = cache.usage();
            int sinceRead = 0;
            try {
                while (reader.next()) {
                    long charge = reader.charge();
                    if (skipped == 0 && (++sinceRead == USAGE_READ_EVERY
                            || usage + charge > capacity)) {
                        usage = cache.usage();
                        sinceRead = 0;
                    }
                    if (skipped > 0 || usage + charge > capacity) {
                        skipped++; // full: this and every colder record stay out
                        continue;
                    }
                    if (cache.insert(reader.key0(), reader.key1(), reader.valueArray(),
                            reader.valueOffset(), reader.valueLength(), charge,
                            reader.priority())) {
                        log.add(reader.key0(), reader.key1());
                        inserted++;
                        usage += charge;
                    } else {
                        refused++;
                    }
                }
            } catch (Throwable t) {
                log.eraseAll(cache, t);
                throw t;
            }
            return new LoadSummary(reader.entries(), inserted, refused, skipped,
                    reader.fileBytes(), System.nanoTime() - start);
        }
    }

    /** The keys a load inserted, in native memory that doubles as it fills. */
    private static final class KeyLog implements AutoCloseable {
        private Arena arena = Arena.ofConfined();
        private MemorySegment keys = arena.allocate(16 << 10, 8);
        private long count;

        void add(long key0, long key1) {
            if ((count + 1) * 16 > keys.byteSize()) {
                Arena bigger = Arena.ofConfined();
                MemorySegment grown = bigger.allocate(keys.byteSize() * 2, 8);
                MemorySegment.copy(keys, 0, grown, 0, keys.byteSize());
                arena.close();
                arena = bigger;
                keys = grown;
            }
            keys.setAtIndex(ValueLayout.JAVA_LONG, 2 * count, key0);
            keys.setAtIndex(ValueLayout.JAVA_LONG, 2 * count + 1, key1);
            count++;
        }

        /** Erases every logged key; what an erase throws is added to {@code failure}. */
        void eraseAll(Cache cache, Throwable failure) {
            for (long i = 0; i < count; i++) {
                try {
                    cache.erase(keys.getAtIndex(ValueLayout.JAVA_LONG, 2 * i),
                            keys.getAtIndex(ValueLayout.JAVA_LONG, 2 * i + 1));
                } catch (RuntimeException | Error e) {
                    failure.addSuppressed(e); // closed meanwhile: close frees them all anyway
                    return;
                }
            }
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
