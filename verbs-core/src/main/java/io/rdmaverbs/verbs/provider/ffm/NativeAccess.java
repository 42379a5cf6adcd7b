package io.rdmaverbs.verbs.provider.ffm;

import io.rdmaverbs.verbs.provider.ProviderUnavailableException;
import io.rdmaverbs.verbs.provider.ProviderUnavailableException.Reason;

/**
 * Whether this code may call restricted {@code java.lang.foreign} methods. The JDK decides: under
 * {@code --illegal-native-access=deny} (the future default) a restricted call without
 * {@code --enable-native-access} throws {@link IllegalCallerException}; under today's default
 * ({@code warn}) it works and the JDK prints a warning naming the flag.
 */
final class NativeAccess {

    private NativeAccess() {
    }

    /** The value {@code --enable-native-access} needs for this code: its module, or ALL-UNNAMED on the class path. */
    static String moduleFlag() {
        Module module = NativeAccess.class.getModule();
        return "--enable-native-access=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
    }

    static ProviderUnavailableException disabled(IllegalCallerException cause) {
        return new ProviderUnavailableException(Reason.NATIVE_ACCESS_DISABLED,
                "native access is disabled for this code, so libibverbs cannot be called: start the JVM with "
                        + moduleFlag() + " (or, for an executable JAR, put 'Enable-Native-Access: ALL-UNNAMED' "
                        + "in its manifest)",
                cause);
    }
}
