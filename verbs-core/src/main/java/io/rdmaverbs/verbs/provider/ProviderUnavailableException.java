package io.rdmaverbs.verbs.provider;

/**
 * A provider cannot be used in this JVM: the library is missing, native access is not enabled, or
 * the platform is unsupported. Thrown when the provider is loaded, never as a class-loading error.
 */
public final class ProviderUnavailableException extends RuntimeException {

    /** Why the provider is unavailable. */
    public enum Reason {
        /** {@code libibverbs.so.1} (or the configured path) could not be loaded. */
        LIBRARY_NOT_FOUND,
        /** The JVM runs without {@code --enable-native-access} for this code. */
        NATIVE_ACCESS_DISABLED,
        /** The library lacks a symbol the binding needs (older than rdma-core 44?). */
        SYMBOL_MISSING,
        /** Not 64-bit Linux. */
        UNSUPPORTED_PLATFORM,
        /**
         * The connection manager cannot be used: librdmacm ({@code librdmacm.so.1}) is missing or unusable,
         * or the {@code rdma_ucm} kernel module is not loaded. The other verb groups are unaffected.
         */
        CONNECTION_MANAGER_UNAVAILABLE
    }

    private final Reason reason;

    public ProviderUnavailableException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public ProviderUnavailableException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
