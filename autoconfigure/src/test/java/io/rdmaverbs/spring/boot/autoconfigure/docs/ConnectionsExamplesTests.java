package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/connections.md's examples (listen/connect/exchange, one-sided RDMA) compile against today's API and,
 * run on two simulated hosts, print exactly what the page quotes ({@link MarkdownExamples} says how pages mark it).
 */
class ConnectionsExamplesTests {

    private static final Path PAGE = Path.of("..", "docs", "connections.md");

    @TempDir
    Path work;

    @Test
    void theListenConnectExchangeAndOneSidedExamplesRunAndPrintWhatThePageQuotes() throws IOException {
        MarkdownExamples examples = MarkdownExamples.of(PAGE);
        assertThat(examples.unmarkedJava()).as("```java blocks without an <!-- example: ... --> marker").isEmpty();
        assertThat(examples.programs()).extracting(MarkdownExamples.Program::name)
                .containsExactly("connections", "one-sided");
        for (MarkdownExamples.Program program : examples.programs()) {
            Path dir = work.resolve(program.name());
            Files.createDirectories(dir);

            List<String> problems = ExampleRun.check(program, dir);

            assertThat(problems).as("problems of example '%s'", program.name()).isEmpty();
        }
    }
}
