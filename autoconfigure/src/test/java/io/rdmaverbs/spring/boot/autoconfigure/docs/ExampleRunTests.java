package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The page checks can fail: each kind of drift is reported with the page line it is on. */
class ExampleRunTests {

    private static final List<String> SETUP = List.of(
            "<!-- example: p",
            "Verbs verbs = Verbs.using(SimulatedProvider.of(DeviceProfile.rxe(\"rxe0\")));",
            "DeviceContext ctx = verbs.openDevice(\"rxe0\");",
            "-->",
            "```java",
            "ProtectionDomain pd = ctx.allocateProtectionDomain(\"pd\");",
            "pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), \"mr\");",
            "pd.close();                         // strict",
            "```");

    private static final String REFUSAL = "CloseRefusedException: ibv_dealloc_pd on pd 'pd' (#2 on rxe0) failed with"
            + " EBUSY (16): refused before the native call (nothing was released): pd 'pd' (#2 on rxe0) is still used"
            + " by mr 'mr' (#3 on rxe0): ibv_dealloc_pd would fail with EBUSY. Release those first, or close with"
            + " ClosePolicy.CASCADE.";

    @TempDir
    Path work;

    @Test
    void anExampleThatPrintsWhatThePageQuotesHasNoProblem() throws IOException {
        assertThat(check(concat(SETUP, List.of("```", REFUSAL, "```")))).isEmpty();
    }

    @Test
    void aQuotedMessageThatIsNotTheOneThrownIsReportedAtItsPageLine() throws IOException {
        List<String> problems = check(concat(SETUP, List.of("```", REFUSAL.replace("mr 'mr'", "mr 'buffers'"), "```")));
        assertThat(problems).singleElement().asString().startsWith("page.md:11: the page quotes:")
                .contains("but the example printed:", "mr 'mr' (#3 on rxe0)");
    }

    @Test
    void anExceptionThePageDoesNotQuoteIsReported() throws IOException {
        List<String> problems = check(SETUP);
        assertThat(problems).singleElement().asString().startsWith("page.md:1: the page quotes no output")
                .contains("CloseRefusedException: ibv_dealloc_pd");
    }

    @Test
    void aBlockThatNoLongerCompilesIsReportedAtItsPageLine() throws IOException {
        List<String> page = SETUP.stream().map(line -> line.replace("allocateMemory", "registerBuffer")).toList();
        List<String> problems = check(page);
        assertThat(problems).singleElement().asString().startsWith("page.md:7: does not compile: cannot find symbol")
                .contains("registerBuffer");
    }

    @Test
    void aJavaBlockWithoutMarkerIsListedAsUnchecked() {
        MarkdownExamples examples = MarkdownExamples.parse("page.md", List.of("text", "```java", "int x = 1;", "```"));
        assertThat(examples.programs()).isEmpty();
        assertThat(examples.unmarkedJava()).extracting(MarkdownExamples.Block::line).containsExactly(3);
    }

    @Test
    void statementsEndWhereTheirLastLineEndsWhateverTheirBracketsAndComments() {
        List<String> code = List.of(
                "QueuePair qp = pd.createQueuePair(",
                "        spec);             // \"a ; in a comment\"",
                "try (Lease lease = pd.lease(\"a;b\")) {",
                "    use(lease);",
                "}",
                "a(); b();",
                "try {",
                "} catch (RuntimeException e) {",
                "}");
        assertThat(Statements.split(code)).containsExactly(new int[] { 0, 1 }, new int[] { 2, 4 }, new int[] { 5, 5 },
                new int[] { 6, 8 });
    }

    private List<String> check(List<String> page) throws IOException {
        MarkdownExamples.Program program = MarkdownExamples.parse("page.md", page).programs().getFirst();
        return ExampleRun.check(program, work);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
