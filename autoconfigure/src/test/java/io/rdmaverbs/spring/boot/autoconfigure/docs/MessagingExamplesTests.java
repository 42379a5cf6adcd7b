package io.rdmaverbs.spring.boot.autoconfigure.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
        MarkdownExamples examples = MarkdownExamples.of(PAGE);
        assertThat(examples.unmarkedJava()).as("```java blocks without an <!-- example: ... --> marker").isEmpty();
        assertThat(examples.unmarkedOutput()).as("quoted output no example prints").isEmpty();
        assertThat(examples.programs()).extracting(MarkdownExamples.Program::name).containsExactly("messaging");
        MarkdownExamples.Program program = examples.programs().getFirst();
        Path dir = work.resolve(program.name());
        Files.createDirectories(dir);

        List<String> problems = ExampleRun.check(program, dir);

        assertThat(problems).as("problems of example '%s'", program.name()).isEmpty();
    }
}
