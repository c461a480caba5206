package dev.clockwork.offheap.model;

/**
 * Values that say what they are: the first {@link #HEADER} bytes hold the key index and the
 * insert's version (unique per sequence), the rest a pattern derived from both, so a value read
 * back names the insert it came from and any corrupted byte shows.
 */
final class Values {
    static final int HEADER = 16;

    private Values() {
    }

    static byte[] of(int key, long version, int length) {
        byte[] b = new byte[length];
        putLong(b, 0, key);
        putLong(b, 8, version);
        long x = mix(key * 0x9E3779B97F4A7C15L + version);
        for (int i = HEADER; i < length; i++) {
            if ((i & 7) == 0) {
                x = mix(x + i);
            }
            b[i] = (byte) (x >>> ((i & 7) << 3));
        }
        return b;
    }

    static long key(byte[] b) {
        return getLong(b, 0);
    }

    static long version(byte[] b) {
        return getLong(b, 8);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (i << 3));
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }
}
