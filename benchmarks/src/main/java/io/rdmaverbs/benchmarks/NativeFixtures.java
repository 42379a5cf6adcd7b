package io.rdmaverbs.benchmarks;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;

/**
 * Where the module's C fixtures are: {@code target/native}, next to {@code target/benchmarks.jar}
 * (or {@code target/classes}), unless {@value #PROPERTY} names another directory. Found from the
 * class's own location so that JMH's forked JVMs need no extra flag.
 */
public final class NativeFixtures {

    public static final String PROPERTY = "rdmaverbs.benchmarks.native";

    private NativeFixtures() {
    }

    /** The fixture file {@code name}, e.g. {@code libfakeverbs.so}; fails with what to build if missing. */
    public static Path file(String name) {
        Path file = directory().resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(file + " does not exist: build the benchmarks first "
                    + "(mvn -Pbenchmarks -pl benchmarks -am package), or point -D" + PROPERTY
                    + " at the directory holding it");
        }
        return file;
    }

    private static Path directory() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        CodeSource source = NativeFixtures.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException("cannot tell where the benchmarks were loaded from; set -D" + PROPERTY);
        }
        try {
            // target/benchmarks.jar or target/classes: either way its parent is target/.
            return Path.of(source.getLocation().toURI()).toAbsolutePath().getParent().resolve("native");
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot tell where the benchmarks were loaded from; set -D" + PROPERTY, e);
        }
    }
}
