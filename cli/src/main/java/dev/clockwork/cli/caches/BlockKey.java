package dev.clockwork.cli.caches;

import java.nio.ByteBuffer;
import org.caffinitas.ohc.CacheSerializer;

/**
 * The peers' key object for a 16-byte key: what a user of an on-heap map or OHC writes for
 * Clockwork's two-long keys. {@code hashCode} mixes both halves (file keys differ in either).
 * A lookup makes one (32 bytes on the heap): the peers' users pay that too.
 */
final class BlockKey {
    final long k0;
    final long k1;

    BlockKey(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BlockKey k && k.k0 == k0 && k.k1 == k1;
    }

    @Override
    public int hashCode() {
        long h = (k0 * 0x9E37_79B9_7F4A_7C15L) ^ k1;
        return (int) (h ^ (h >>> 32));
    }

    /** OHC's key serializer: the two longs, 16 bytes. */
    static final CacheSerializer<BlockKey> SERIALIZER = new CacheSerializer<>() {
        @Override
        public void serialize(BlockKey key, ByteBuffer buf) {
            buf.putLong(key.k0).putLong(key.k1);
        }

        @Override
        public BlockKey deserialize(ByteBuffer buf) {
            return new BlockKey(buf.getLong(), buf.getLong());
        }

        @Override
        public int serializedSize(BlockKey key) {
            return 2 * Long.BYTES;
        }
    };
}
