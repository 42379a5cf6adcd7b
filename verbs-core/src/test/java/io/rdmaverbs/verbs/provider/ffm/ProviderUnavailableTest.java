package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Each way the provider can be unavailable, in a JVM of its own (the library is loaded once per
 * process, so these cannot share this one): loading reports a reason and what to do, never a
 * linkage error.
 */
class ProviderUnavailableTest {

    private static final String ENABLE = "--enable-native-access=ALL-UNNAMED";

    @Test
    void aLibraryPathToAMissingFileIsLibraryNotFoundNamingThePath() throws Exception {
        String missing = "/nonexistent/rdma-core/libibverbs.so.1";

        Map<String, String> out = forkedLoad(ENABLE, "-D" + NativeVerbsProvider.LIBRARY_PROPERTY + "=" + missing);

        assertThat(out).containsEntry("availability", "LIBRARY_NOT_FOUND").containsEntry("load", "LIBRARY_NOT_FOUND");
        assertThat(out.get("load.message")).contains(missing).contains("does not exist")
                .contains(NativeVerbsProvider.LIBRARY_PROPERTY);
        assertThat(out.get("availability.message")).isEqualTo(out.get("load.message"));
    }

    @Test
    void deniedNativeAccessIsNativeAccessDisabledNamingTheFlagToAdd() throws Exception {
        Map<String, String> out = forkedLoad("--illegal-native-access=deny");

        assertThat(out).containsEntry("availability", "NATIVE_ACCESS_DISABLED")
                .containsEntry("load", "NATIVE_ACCESS_DISABLED");
        assertThat(out.get("load.message")).contains(ENABLE);
    }

    @Test
    void aLibraryWithoutTheVerbsIsSymbolMissingNamingTheMissingSymbols() throws Exception {
        // libjava is already mapped in every JVM, so it loads; it has no ibv_* symbol.
        Path notVerbs = Path.of(System.getProperty("java.home"), "lib", "libjava.so");

        Map<String, String> out = forkedLoad(ENABLE, "-D" + NativeVerbsProvider.LIBRARY_PROPERTY + "=" + notVerbs);

        assertThat(out).containsEntry("load", "SYMBOL_MISSING");
        assertThat(out.get("load.message")).contains("ibv_get_device_list").contains(notVerbs.toString());
    }

    @Test
    void withNativeAccessEnabledTheSystemLibraryLoadsInAFreshJvm() throws Exception {
        Map<String, String> out = forkedLoad(ENABLE);

        assertThat(out).containsEntry("availability", "AVAILABLE").containsEntry("load", "LOADED");
        assertThat(out.get("availability.message")).contains("libibverbs").doesNotContain("not enabled");
    }

    private static Map<String, String> forkedLoad(String... jvmArgs) throws IOException, InterruptedException {
        Map<String, String> values = forked(ForkedLoad.class, jvmArgs);
        assertThat(values).as("output of the forked JVM").containsKeys("availability", "load");
        return values;
    }

    /** Runs {@code main} in a JVM of its own and returns the {@code key=value} lines it printed. */
    static Map<String, String> forked(Class<?> main, String... jvmArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("forked JVM finished").isTrue();
        assertThat(process.exitValue()).as("forked JVM exit code; output:\n" + output).isZero();
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("WARNING")) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return values;
    }
}
