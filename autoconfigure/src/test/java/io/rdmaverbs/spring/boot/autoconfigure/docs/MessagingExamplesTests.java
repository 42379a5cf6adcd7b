package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/messaging.md's examples (an endpoint, the template's request and reply, JSON, error replies, a
 * large transfer) compile against today's API and, run as one application on the simulated provider,
 * print exactly what the page quotes ({@link MarkdownExamples} says how pages mark them).
 */
class MessagingExamplesTests {

    private static final Path PAGE = Path.of("..", "docs", "messaging.md");

    @TempDir
    Path work;

    @Test
    void theMessagingExamplesRunAsOneApplicationAndPrintWhatThePageQuotes() throws IOException {
        assertThat(ExampleRun.checkPrograms(PAGE, work, "messaging")).as("problems of docs/messaging.md").isEmpty();
    }
}
