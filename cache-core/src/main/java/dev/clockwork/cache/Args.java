package dev.clockwork.cache;

/** Argument checks whose messages name the argument, shared by every builder and cache. */
public final class Args {
    private Args() {
    }

    public static long requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }

    public static long requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + value);
        }
        return value;
    }

    public static int requireInRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    public static long requireInRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    public static double requireInRange(String name, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    public static <T> T requireNonNull(String name, T value) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null");
        }
        return value;
    }

    /**
     * Checks that {@code offset} is a position in a destination of {@code size} bytes, its end
     * included ({@code [0, size]}); the message names the destination's size as {@code sizeName}.
     *
     * @throws IndexOutOfBoundsException if it is not
     */
    public static long requireOffset(long offset, long size, String sizeName) {
        if (offset < 0 || offset > size) {
            throw new IndexOutOfBoundsException(
                    "offset " + offset + " is outside [0, " + sizeName + " = " + size + "]");
        }
        return offset;
    }

    /**
     * Checks that a value of {@code size} bytes fits in the {@code room} bytes a destination has
     * at {@code offset}.
     *
     * @throws IllegalArgumentException naming {@code dst} if it does not
     */
    public static void requireRoom(long size, long room, long offset) {
        if (size > room) {
            throw new IllegalArgumentException("dst has room for " + room + " bytes at offset "
                    + offset + ", value has " + size);
        }
    }
}
