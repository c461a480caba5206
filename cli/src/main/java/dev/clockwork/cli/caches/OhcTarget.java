package dev.clockwork.cli.caches;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * OHC (off-heap, LRU) with {@code byte[]} values through OHC's own serializer interface, as an
 * OHC user writes it: {@code put} copies the array into native memory, {@code get} copies the
 * value out into a new array. Nothing pins.
 *
 * <ul>
 *   <li>{@code ohc_linked}: OHC's default implementation (an entry per allocation, segments =
 *     2 x cores).</li>
 *   <li>{@code ohc_chunked}: OHC's chunked implementation, 1 MiB chunks (less for a cache under
 *     64 MiB, where a segment must hold several), entries of any size up to a chunk, segments
 *     of at most 1 GiB ({@link #chunkedSegments}).</li>
 * </ul>
 */
final class OhcTarget extends PeerTarget {
    /** The chunk of {@code ohc_chunked}, unless the cache is small. */
    private static final int CHUNK_BYTES = 1 << 20;

    private final String type;
    private final boolean chunked;
    private final OHCache<BlockKey, byte[]> ohc;
    private boolean closed;

    OhcTarget(String type, long capacity, boolean chunked) {
        this.type = type;
        this.chunked = chunked;
        OHCacheBuilder<BlockKey, byte[]> b = OHCacheBuilder.<BlockKey, byte[]>newBuilder()
                .keySerializer(BlockKey.SERIALIZER)
                .valueSerializer(BYTES)
                .capacity(capacity)
                .eviction(Eviction.LRU);
        if (chunked) {
            b.chunkSize((int) Math.min(CHUNK_BYTES, Long.highestOneBit(Math.max(1, capacity / 64))))
                    .segmentCount(chunkedSegments(capacity));
        }
        this.ohc = b.build();
    }

    /** The largest segment OHC's chunked implementation accepts. */
    static final long MAX_CHUNKED_SEGMENT_BYTES = 1L << 30;

    /**
     * Segments of {@code ohc_chunked}: OHC's default (twice the cores, a power of two), or more
     * when that would make a segment larger than {@link #MAX_CHUNKED_SEGMENT_BYTES}, which OHC
     * refuses ("Segment too big"), as a user sizing it for many GiB must.
     */
    static int chunkedSegments(long capacity) {
        int cores = Runtime.getRuntime().availableProcessors();
        int byDefault = Integer.highestOneBit(Math.max(1, 2 * cores - 1)) << 1;
        long needed = Math.ceilDiv(capacity, MAX_CHUNKED_SEGMENT_BYTES);
        return (int) Math.max(byDefault, Long.highestOneBit(Math.max(1, needed - 1)) << 1);
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public String implName() {
        return "OHC " + (chunked ? "chunked" : "linked") + " (byte[] values)";
    }

    @Override
    byte[] get(BlockKey key) {
        return ohc.get(key);
    }

    @Override
    boolean put(BlockKey key, byte[] value) {
        return ohc.put(key, value);
    }

    @Override
    void remove(BlockKey key) {
        ohc.remove(key);
    }

    @Override
    public long entryCount() {
        return ohc.size();
    }

    @Override
    public long usage() {
        return ohc.memUsed();
    }

    @Override
    public void setCapacity(long capacity) {
        ohc.setCapacity(capacity);
    }

    @Override
    public void close() {
        if (closed) {
            return; // OHC's own close is not idempotent
        }
        closed = true;
        try {
            ohc.close();
        } catch (IOException e) {
            throw new IllegalStateException("OHC failed to close", e);
        }
    }

    /** Values as {@code byte[]}: copied in on put, out into a new array on get. */
    private static final CacheSerializer<byte[]> BYTES = new CacheSerializer<>() {
        @Override
        public void serialize(byte[] value, ByteBuffer buf) {
            buf.put(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer buf) {
            byte[] v = new byte[buf.remaining()];
            buf.get(v);
            return v;
        }

        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }
    };
}
