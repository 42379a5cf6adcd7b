package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/resource-graph.md shows code that compiles against today's API and, run on the simulated
 * provider, prints exactly the messages the page quotes (see {@link MarkdownExamples} for how the page
 * marks them).
 */
class ResourceGraphExamplesTests {

    private static final Path PAGE = Path.of("..", "docs", "resource-graph.md");

    @TempDir
    Path work;

    @Test
    void everyJavaBlockAndEveryQuotedOutputOnThePageIsChecked() throws IOException {
        MarkdownExamples examples = MarkdownExamples.of(PAGE);
        assertThat(examples.unmarkedJava()).as("```java blocks without an <!-- example: ... --> marker")
                .extracting(block -> PAGE.getFileName() + ":" + block.line())
                .isEmpty();
        assertThat(examples.unmarkedOutput()).as("quoted output no <!-- example: ... --> produces")
                .extracting(block -> PAGE.getFileName() + ":" + block.line())
                .isEmpty();
        assertThat(examples.programs()).extracting(MarkdownExamples.Program::name)
                .contains("release-rules", "unacknowledged-events", "xrc");
    }

    @TestFactory
    Stream<DynamicTest> eachExampleCompilesAndPrintsWhatThePageQuotes() throws IOException {
        return MarkdownExamples.of(PAGE).programs().stream().map(program -> DynamicTest.dynamicTest(
                program.page() + ":" + program.line() + " (" + program.name() + ")", () -> {
                    Path dir = work.resolve(program.name());
                    Files.createDirectories(dir);
                    List<String> problems = ExampleRun.check(program, dir);
                    assertThat(problems).as("problems of example '%s'", program.name()).isEmpty();
                }));
    }
}
