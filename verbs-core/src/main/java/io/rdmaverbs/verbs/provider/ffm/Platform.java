package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.ValueLayout;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/** The ABIs whose struct layouts this binding knows: 64-bit Linux on x86_64 and aarch64. */
final class Platform {

    private static final String OS = System.getProperty("os.name", "");
    private static final String ARCH = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);

    private Platform() {
    }

    static boolean isAarch64() {
        return ARCH.equals("aarch64") || ARCH.equals("arm64");
    }

    private static boolean isX86_64() {
        return ARCH.equals("amd64") || ARCH.equals("x86_64");
    }

    /** Why this JVM's platform is not supported, or {@code null} when it is. */
    static @Nullable String unsupportedReason() {
        if (!OS.startsWith("Linux")) {
            return "libibverbs is Linux-only; this JVM runs on " + OS;
        }
        if (ValueLayout.ADDRESS.byteSize() != 8 || !(isX86_64() || isAarch64())) {
            return "the native provider knows the struct layouts of 64-bit Linux on x86_64 and aarch64 only; "
                    + "this JVM runs on " + ARCH;
        }
        return null;
    }

    static String description() {
        return OS + "/" + ARCH;
    }
}
