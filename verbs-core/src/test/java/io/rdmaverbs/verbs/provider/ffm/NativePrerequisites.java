package io.rdmaverbs.verbs.provider.ffm;

import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * The one decision on a native test that cannot run here (no gcc, no {@code verbs.h}): on a developer's
 * machine it is skipped with what to install; in CI ({@code CI=true}, as GitHub Actions, GitLab and most
 * others set it) it fails, since a silently skipped ABI or data-path check is a check that never runs.
 */
final class NativePrerequisites {

    private NativePrerequisites() {
    }

    /** Skips or fails the calling test when {@code missing} says what is missing; nothing when empty. */
    static void require(Optional<String> missing) {
        require(missing, System.getenv("CI"));
    }

    /** {@link #require(Optional)} with the value of {@code CI} given, for its own test. */
    static void require(Optional<String> missing, @Nullable String ci) {
        if (missing.isEmpty()) {
            return;
        }
        if ("true".equalsIgnoreCase(ci)) {
            throw new AssertionError("a native test cannot run in CI (CI=" + ci + "): " + missing.get()
                    + "; install it in the build image rather than skipping the test");
        }
        Assumptions.abort("skipped, " + missing.get() + " (CI runs must have it)");
    }
}
