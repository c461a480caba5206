package dev.clockwork.offheap;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves native memory behind: after its last test, no value, table or
 * slab may be allocated and no Auto table reservation mapped. Registered as a service and
 * auto-detected (see the parent pom's surefire configuration), so it applies to every test class
 * of cache-offheap, and of cli through cache-offheap's test-jar, without each class opting in.
 * Test classes run one after another in one JVM, so whatever is outstanding is the class's own.
 */
public final class NativeLeakCheck implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
        long outstanding = NativeMemory.outstandingBytes();
        long reserved = NativeMemory.reservedBytes();
        if (outstanding != 0 || reserved != 0) {
            throw new AssertionError(context.getDisplayName() + " left " + outstanding
                    + " native bytes allocated and " + reserved + " reserved: a cache it"
                    + " built was not closed, or close did not return everything");
        }
    }
}
