package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every struct layout, field offset and constant of the binding against the installed
 * {@code <infiniband/verbs.h>}: {@code src/test/c/verbs_abi.c} prints them from the header,
 * {@link NativeAbi} from the Java layouts, and any difference fails with its name.
 */
class NativeAbiTest {

    @Test
    void everyLayoutFieldAndConstantMatchesTheInstalledVerbsHeader() throws IOException {
        Optional<String> unavailable = CCompiler.unavailable();
        assumeTrue(unavailable.isEmpty(), () -> "ABI check skipped: " + unavailable.orElseThrow());

        Map<String, Long> header = parse(CCompiler.output(CCompiler.program("verbs_abi.c")));

        assertThat(compare(NativeAbi.entries(), header))
                .as("differences between the Java layouts (NativeAbi) and <infiniband/verbs.h> (verbs_abi.c)")
                .isEmpty();
        assertThat(header).as("the C program checks the layouts the inline verbs dispatch through")
                .containsKeys("offsetof(verbs_context, open_xrcd)", "offsetof(verbs_context, sz)",
                        "offsetof(verbs_context, context)", "offsetof(ibv_context, abi_compat)",
                        "offsetof(ibv_context_ops, post_send)", "offsetof(ibv_send_wr, wr.ud.remote_qkey)");
    }

    @Test
    void aWrongOffsetAMissingFieldAndAStaleFieldAreEachReportedByName() {
        Map<String, Long> java = new LinkedHashMap<>(NativeAbi.entries());
        Map<String, Long> header = new LinkedHashMap<>(java);
        java.put("offsetof(ibv_wc, imm_data)", java.get("offsetof(ibv_wc, imm_data)") + 4);
        java.put("offsetof(ibv_wc, added_in_java)", 8L);
        header.put("offsetof(ibv_wc, only_in_the_header)", 8L);

        assertThat(compare(java, header)).containsExactlyInAnyOrder(
                "offsetof(ibv_wc, imm_data): Java 28, header 24",
                "offsetof(ibv_wc, added_in_java): Java 8, not printed by verbs_abi.c (add it there)",
                "offsetof(ibv_wc, only_in_the_header): header 8, not in NativeAbi (stale line in verbs_abi.c?)");
    }

    @Test
    void everyStructClassOfTheBindingIsInTheAbiTable() throws Exception {
        Path sources = Path.of("src/main/java/io/rdmaverbs/verbs/provider/ffm");
        assumeTrue(Files.isDirectory(sources), "run from the verbs-core module directory");
        List<String> missing = new ArrayList<>();
        try (Stream<Path> files = Files.list(sources)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                Class<?> type = Class.forName(getClass().getPackageName() + "." + name);
                Object layout;
                try {
                    var field = type.getDeclaredField("LAYOUT");
                    field.setAccessible(true);
                    layout = field.get(null);
                } catch (NoSuchFieldException e) {
                    continue;
                }
                if (layout instanceof StructLayout struct && !NativeAbi.STRUCTS.contains(struct)) {
                    missing.add(name);
                }
            }
        }
        assertThat(missing).as("struct layouts not checked against the header").isEmpty();
    }

    /** Every name whose values differ, or that only one side has. */
    static List<String> compare(Map<String, Long> java, Map<String, Long> header) {
        List<String> differences = new ArrayList<>();
        java.forEach((name, value) -> {
            Long expected = header.get(name);
            if (expected == null) {
                differences.add(name + ": Java " + value + ", not printed by verbs_abi.c (add it there)");
            } else if (!expected.equals(value)) {
                differences.add(name + ": Java " + value + ", header " + expected);
            }
        });
        header.forEach((name, value) -> {
            if (!java.containsKey(name)) {
                differences.add(name + ": header " + value + ", not in NativeAbi (stale line in verbs_abi.c?)");
            }
        });
        return differences;
    }

    private static Map<String, Long> parse(String output) {
        Map<String, Long> entries = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                int eq = line.lastIndexOf('=');
                entries.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
            }
        }
        return entries;
    }
}
