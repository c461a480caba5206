package dev.clockwork.offheap;

import dev.clockwork.cache.dump.DumpWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;

/**
 * A cache's dump walk with a block of 64 bytes instead of {@code dump}'s 1 MiB, for the stress
 * tests (cache-stress), which dump a tiny cache once per iteration: the walk is the one
 * {@link EngineCache#dump} runs, only the writer's buffer is smaller. Shipped in this module's
 * test-jar; not part of the library.
 */
public final class DumpProbe {
    private DumpProbe() {
    }

    /**
     * The cache's dump, as bytes.
     *
     * @param cache the cache to dump
     * @return the whole dump, header to trailer
     */
    public static byte[] dump(EngineCache cache) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try {
            DumpWriter writer = new DumpWriter(Channels.newChannel(bytes), cache.dumpOrder(), 64);
            cache.checkOpen();
            cache.dumpEntries(writer);
            writer.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
