package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Every struct layout, member offset, member size and constant of the binding against the installed
 * {@code <infiniband/verbs.h>}: {@code src/test/c/verbs_abi.c} prints them from the header,
 * {@link NativeAbi} from the Java layouts, and any difference fails with its name. Which structs and
 * members the C program prints is generated from the same layouts, so a member added in Java is
 * checked with no edit to the C file.
 */
class NativeAbiTest {

    @TempDir
    Path generated;

    @Test
    void everyLayoutMemberAndConstantMatchesTheInstalledVerbsHeader() throws IOException {
        Map<String, Long> header = headerFor(NativeAbi.STRUCTS);

        assertThat(compare(NativeAbi.entries(), header))
                .as("differences between the Java layouts (NativeAbi) and <infiniband/verbs.h> (verbs_abi.c)")
                .isEmpty();
        assertThat(header).as("the C program checks the layouts the inline verbs dispatch through")
                .containsKeys("offsetof(verbs_context, open_xrcd)", "offsetof(verbs_context, sz)",
                        "offsetof(verbs_context, context)", "offsetof(ibv_context, abi_compat)",
                        "offsetof(ibv_context_ops, post_send)", "offsetof(ibv_send_wr, wr.ud.remote_qkey)");
        assertThat(header).as("the size of each struct and of each member is checked, not only offsets")
                .containsEntry("sizeof(ibv_wc)", 48L)
                .containsEntry("sizeof(ibv_wc.slid)", 2L)
                .containsEntry("sizeof(ibv_context.mutex)", Layouts.PTHREAD_MUTEX_T.byteSize());
    }

    @Test
    void everyRdmaCmLayoutMemberAndConstantMatchesTheInstalledRdmaCmaHeader() throws IOException {
        Optional<String> unavailable = CCompiler.unavailable("rdma/rdma_cma.h", "librdmacm-dev");
        NativePrerequisites.require(unavailable);
        Files.writeString(generated.resolve("rdmacm_abi_layouts.h"), layoutLines(NativeAbi.RDMA_CM_STRUCTS));
        Map<String, Long> header = parse(CCompiler.output(CCompiler.program("rdmacm_abi.c", generated)));

        assertThat(compare(NativeAbi.rdmaCmEntries(), header))
                .as("differences between the Java layouts (NativeAbi.rdmaCmEntries) and <rdma/rdma_cma.h>")
                .isEmpty();
        assertThat(header).as("nested members are checked down to the scope id and the private data length")
                .containsKeys("offsetof(rdma_cm_id, route.addr.dst_sin6.sin6_scope_id)",
                        "offsetof(rdma_cm_event, param.conn.private_data_len)",
                        "offsetof(rdma_cm_event, param.ud.qkey)", "offsetof(rdma_cm_id, qp_type)")
                .containsEntry("sizeof(sockaddr_storage)", 128L)
                .containsEntry("RDMA_PS_TCP", 0x0106L);
    }

    @Test
    void aMemberOfTheRightOffsetButTheWrongWidthFailsAgainstTheHeader() throws IOException {
        Map<String, Long> header = headerFor(NativeAbi.STRUCTS);
        // ibv_wc.slid is a uint16_t; as a byte plus a byte of padding, every offset and the struct's size
        // stay right, and only the member's size tells.
        StructLayout narrowSlid = MemoryLayout.structLayout(IbvWc.LAYOUT.memberLayouts().stream()
                .flatMap(m -> m.name().equals(Optional.of("slid"))
                        ? Stream.of(Layouts.U8.withName("slid"), MemoryLayout.paddingLayout(1))
                        : Stream.of(m))
                .toArray(MemoryLayout[]::new)).withName("ibv_wc");
        List<StructLayout> structs = NativeAbi.STRUCTS.stream()
                .map(s -> s == IbvWc.LAYOUT ? narrowSlid : s)
                .toList();

        assertThat(compare(NativeAbi.entries(structs), header)).containsExactly("sizeof(ibv_wc.slid): Java 1, header 2");
    }

    @Test
    void aMemberTheHeaderLacksFailsToCompileWithItsName() {
        StructLayout extra = MemoryLayout.structLayout(Layouts.U32.withName("added_in_java")).withName("ibv_wc");

        assertThatThrownBy(() -> headerFor(List.of(extra)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("added_in_java");
    }

    @Test
    void aWrongOffsetAMissingConstantAndAStaleConstantAreEachReportedByName() {
        Map<String, Long> java = new LinkedHashMap<>(NativeAbi.entries());
        Map<String, Long> header = new LinkedHashMap<>(java);
        java.put("offsetof(ibv_wc, imm_data)", java.get("offsetof(ibv_wc, imm_data)") + 4);
        java.put("IBV_ADDED_IN_JAVA", 8L);
        header.put("IBV_ONLY_IN_THE_HEADER", 8L);

        assertThat(compare(java, header)).containsExactlyInAnyOrder(
                "offsetof(ibv_wc, imm_data): Java 28, header 24",
                "IBV_ADDED_IN_JAVA: Java 8, not printed by verbs_abi.c (add it there)",
                "IBV_ONLY_IN_THE_HEADER: header 8, not in NativeAbi (stale line in verbs_abi.c?)");
    }

    @Test
    void everyStructClassOfTheBindingIsInTheAbiTable() throws Exception {
        Path sources = Path.of("src/main/java/io/rdmaverbs/verbs/provider/ffm");
        NativePrerequisites.require(Files.isDirectory(sources) ? Optional.empty()
                : Optional.of("the sources are not in " + sources.toAbsolutePath() + ": run from the verbs-core module directory"));
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
                if (layout instanceof StructLayout struct && !NativeAbi.STRUCTS.contains(struct)
                        && !NativeAbi.RDMA_CM_STRUCTS.contains(struct)) {
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

    /**
     * Runs verbs_abi.c with the STRUCT and FIELD lines of {@code structs} (in {@code verbs_abi_layouts.h},
     * written to a directory of this test's own); skips the test without gcc or {@code verbs.h}.
     */
    private Map<String, Long> headerFor(List<StructLayout> structs) throws IOException {
        NativePrerequisites.require(CCompiler.unavailable());
        Files.writeString(generated.resolve("verbs_abi_layouts.h"), layoutLines(structs));
        return parse(CCompiler.output(CCompiler.program("verbs_abi.c", generated)));
    }

    /** {@code STRUCT(s);} and one {@code FIELD(s, path);} per named member, as verbs_abi.c defines them. */
    static String layoutLines(List<StructLayout> structs) {
        StringBuilder lines = new StringBuilder("/* generated by NativeAbiTest from NativeAbi's layouts */\n");
        for (StructLayout struct : structs) {
            lines.append("\tSTRUCT(").append(struct.name().orElseThrow()).append(");\n");
            for (NativeAbi.Member m : NativeAbi.members(struct)) {
                lines.append("\tFIELD(").append(m.struct()).append(", ").append(m.path()).append(");\n");
            }
        }
        return lines.toString();
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
