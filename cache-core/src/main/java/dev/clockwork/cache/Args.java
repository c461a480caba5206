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
}
