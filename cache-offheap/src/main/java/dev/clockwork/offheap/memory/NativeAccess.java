package dev.clockwork.offheap.memory;

import java.lang.foreign.MemorySegment;

/**
 * The check that the JVM lets this module call native code, made when a cache is built, before
 * any native call: a JVM that refuses ({@code --illegal-native-access=deny}, the announced future
 * default) then gets one {@link IllegalStateException} saying which flag to add, instead of an
 * {@link ExceptionInInitializerError} from deep inside the first allocation.
 *
 * <p>A JVM that merely warns (the default from JDK 24 on) prints its own warning and runs; one
 * with native access enabled for this module passes without a restricted call.
 */
public final class NativeAccess {
    private NativeAccess() {
    }

    /**
     * Returns if native access is enabled for this module or merely warned about.
     *
     * @throws IllegalStateException naming the {@code --enable-native-access} flag to add, if the
     *     JVM refuses native access to this module
     */
    public static void require() {
        Module module = NativeAccess.class.getModule();
        if (module.isNativeAccessEnabled()) {
            return;
        }
        try {
            // The cheapest restricted method: it allocates nothing and touches no memory.
            MemorySegment.NULL.reinterpret(0);
        } catch (IllegalCallerException refused) {
            throw new IllegalStateException(message(module), refused);
        }
    }

    /**
     * The one-line message for a JVM that refuses native access to {@code module}.
     *
     * @param module the module that needs native access
     * @return the message, naming the flag to add
     */
    public static String message(Module module) {
        String name = module.isNamed() ? module.getName() : "ALL-UNNAMED";
        String where = module.isNamed() ? "on the module path" : "on the class path";
        return "Clockwork needs native access (its caches keep their memory off heap through FFM):"
                + " add --enable-native-access=" + name + " to the java command (the library is "
                + where + ")";
    }
}
