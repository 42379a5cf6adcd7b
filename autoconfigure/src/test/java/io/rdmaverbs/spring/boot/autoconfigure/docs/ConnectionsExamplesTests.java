package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Path;

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
        assertThat(ExampleRun.checkPrograms(PAGE, work, "connections", "one-sided"))
                .as("problems of docs/connections.md").isEmpty();
    }
}
