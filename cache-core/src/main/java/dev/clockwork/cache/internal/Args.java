package dev.clockwork.cache.internal;

/** Argument checks whose messages name the argument, shared by every builder and cache. */
public final class Args {
    private Args() {
    }

    /**
     * Checks that {@code value} is positive.
     *
     * @param name the argument's name, for the message
     * @param value the argument
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value <= 0}
     */
    public static long requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }

    /**
     * Checks that {@code value} is not negative.
     *
     * @param name the argument's name, for the message
     * @param value the argument
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value < 0}
     */
    public static long requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, was " + value);
        }
        return value;
    }

    /**
     * Checks that {@code value} is in {@code [min, max]}.
     *
     * @param name the argument's name, for the message
     * @param value the argument
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is outside {@code [min, max]}
     */
    public static int requireInRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    /**
     * Checks that {@code value} is in {@code [min, max]}.
     *
     * @param name the argument's name, for the message
     * @param value the argument
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is outside {@code [min, max]}
     */
    public static long requireInRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    /**
     * Checks that {@code value} is in {@code [min, max]}; NaN never is.
     *
     * @param name the argument's name, for the message
     * @param value the argument
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is NaN or outside {@code [min, max]}
     */
    public static double requireInRange(String name, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new IllegalArgumentException(
                    name + " must be in [" + min + ", " + max + "], was " + value);
        }
        return value;
    }

    /**
     * Checks that {@code value} is not null.
     *
     * @param <T> the argument's type
     * @param name the argument's name, for the message
     * @param value the argument
     * @return {@code value}
     * @throws NullPointerException if {@code value} is null
     */
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
     * @param offset the position to check
     * @param size the destination's size (bytes or elements)
     * @param sizeName how the message names {@code size}, e.g. {@code "dst.length"}
     * @return {@code offset}
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
     * @param size the value's size in bytes
     * @param room the bytes the destination has from {@code offset} on
     * @param offset where in the destination the value would go, for the message only
     * @throws IllegalArgumentException naming {@code dst} if it does not
     */
    public static void requireRoom(long size, long room, long offset) {
        if (size > room) {
            throw new IllegalArgumentException("dst has room for " + room + " bytes at offset "
                    + offset + ", value has " + size);
        }
    }
}
